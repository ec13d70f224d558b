/*
 * The corpus's input and output: a program's text form (fuzz/prog.h), the
 * line the console carries out and the initrd carries back in, and the
 * small helpers the file readers share.
 */
#ifndef _FUZZ_TEXT_H
#define _FUZZ_TEXT_H

static int collide_cut(const struct fz_prog *p, struct fz_prog *q);	/* fuzz/collide.h */

/* ---------------------------------------------------------------- text form */
static int format(const struct fz_prog *p, char *out, int size)
{
	int len = p->collide ? snprintf(out, size, "collide:") : 0;

	out[len < size ? len : 0] = '\0';
	for (int i = 0; i < p->n && len < size; i++) {
		const struct fz_desc *d = &fz_descs[p->c[i].desc];

		len += snprintf(out + len, size - len, "%s%s(", i ? ";" : "", d->name);
		for (int k = 0; k < d->nargs && len < size; k++) {
			const struct fz_arg *a = &p->c[i].a[k];

			if (a->ref == A_LIT)
				len += snprintf(out + len, size - len, "%s%ld", k ? "," : "", (long)a->v);
			else
				len += snprintf(out + len, size - len, "%s%c%ld", k ? "," : "",
						a->ref == A_RES ? 'r' : 's', (long)a->v);
		}
		len += snprintf(out + len, size - len, ")");
	}
	return len < size ? 0 : -1;
}

/* 0, or -1 for a line that is no program of this table. */
static int parse(const char *s, struct fz_prog *p)
{
	memset(p, 0, sizeof(*p));
	if (!strncmp(s, "collide:", 8)) {
		p->collide = 1;
		s += 8;
	}
	while (*s && *s != '\n' && p->n < MAX_CALLS) {
		const char *open = strchr(s, '(');
		int desc = -1, k = 0;

		if (!open)
			return -1;
		for (int i = 0; i < NR_DESCS; i++)
			if ((size_t)(open - s) == strlen(fz_descs[i].name) &&
			    !strncmp(s, fz_descs[i].name, open - s))
				desc = i;
		if (desc < 0)
			return -1;
		p->c[p->n].desc = desc;
		s = open + 1;
		while (*s && *s != ')') {
			struct fz_arg *a = &p->c[p->n].a[k < MAX_ARGS ? k : MAX_ARGS - 1];
			char *end;

			a->ref = *s == 'r' ? A_RES : *s == 's' ? A_RES2 : A_LIT;
			a->v = strtol(s + (a->ref != A_LIT), &end, 10);
			if (end == s)
				return -1;
			s = *end == ',' ? end + 1 : end;
			k++;
		}
		if (*s != ')' || k != fz_descs[desc].nargs)
			return -1;
		s++;
		p->n++;
		if (*s == ';')
			s++;
	}
	if (!p->n)
		return -1;
	fixup(p);
	if (p->collide) {		/* only the calls a collide can check */
		struct fz_prog q;

		if (collide_cut(p, &q) < 2)
			return -1;
		*p = q;
	}
	return 0;
}

static long max(long a, long b)
{
	return a > b ? a : b;
}

/* The newline that ends the line at s, or NULL if it runs to end. */
static char *line_end(char *s, char *end)
{
	while (s < end && *s != '\n')
		s++;
	return s < end ? s : NULL;
}

#endif
