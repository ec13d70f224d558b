/*
 * syzq's mutator: a corpus program changed by inserting a call, removing
 * one, splicing another program's tail on, or changing an argument, with
 * the generator's helpers (fuzz/gen.h) keeping every reference valid.
 */
#ifndef _FUZZ_MUTATE_H
#define _FUZZ_MUTATE_H

static void mutate(struct fz_prog *p, const struct fz_prog *other)
{
	int ops = 1 + rnd() % 3;

	while (ops--) {
		switch (rnd() % 5) {
		case 0: {	/* insert */
			int pos = rnd() % (p->n + 1);

			insert_call(p, pos, pick_desc(p, pos), 0);
			break;
		}
		case 1:		/* remove */
			if (p->n > 1)
				remove_call(p, rnd() % p->n);
			break;
		case 2:		/* splice: our head, the other's tail */
			if (other && other->n) {
				int head = rnd() % (p->n + 1), from = rnd() % other->n;

				for (int j = from; j < other->n && head < MAX_CALLS; j++, head++) {
					p->c[head] = other->c[j];
					for (int k = 0; k < MAX_ARGS; k++)
						if (p->c[head].a[k].ref != A_LIT)
							p->c[head].a[k].v += head - j;
				}
				p->n = head;
				fixup(p);
				break;
			}
			/* fall through */
		default: {	/* change an argument */
			int i = rnd() % p->n, nargs = fz_descs[p->c[i].desc].nargs;

			if (nargs) {
				int k = rnd() % nargs;

				if (rnd() % 2 && !seeded(fz_descs[p->c[i].desc].kind[k]))
					gen_arg(p, i, k);
				else if (p->c[i].a[k].ref == A_LIT)
					p->c[i].a[k].v ^= (int64_t)1 << (rnd() % 16);
			}
		}
		}
	}
	if (!p->n)
		generate(p);
}

#endif
