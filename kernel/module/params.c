/*
 * What a module says about itself, and what insmod tells it.
 *
 * .modinfo is a list of NUL-terminated "tag=value" strings (MODULE_INFO()
 * in include/module.h), read straight from the file: name= (required; the
 * Makefile sets it from the file's name), vermagic= (required; the
 * kernel configuration the module was compiled against, which must be
 * this kernel's: inline code such as rcu_read_lock() and preempt_enable()
 * differs between configurations), license=, description=, author=.
 *
 * .modparams is an array of struct module_param (module_param()), one per
 * parameter: its name, the variable's address and its type. It is read
 * after relocation, when its pointers hold final addresses, each checked
 * to lie inside the module: the name and description in its memory, the
 * variable in its read-write part. The parameter string is words
 * separated by blanks, "name=value", or "name" alone for a bool (true):
 *
 *	insmod hello.ko count=3 who=world loud
 *
 * int and uint take a decimal or 0x number in range, bool takes
 * 1/0/y/n/true/false, charp takes any word (it points into a copy of the
 * string the module keeps, mod->args). An unknown name or a bad value
 * refuses the load with -EINVAL.
 */
#include "internal.h"
#include <string.h>
#include <kmalloc.h>
#include <errno.h>
#include <generated/vermagic.h>

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

/*
 * name= must fit struct module's name field with its NUL: fill_module()
 * copies it there, and a name cut to fit could clash with a module whose
 * name is the cut one. Its length is counted only up to .modinfo's end
 * (whose last byte parse_modinfo() has seen is a NUL), never beyond.
 */
static int check_name(struct load_info *li, const char *end)
{
	size_t n;

	if (!li->name)
		return load_fail(li, -ENOEXEC, "no name= in .modinfo");
	n = strnlen(li->name, end - li->name);
	if (n >= QS_MODULE_NAME_LEN)
		return load_fail(li, -ENAMETOOLONG, "name= is %zu characters, longer than the %d "
				 "a module name may have", n, QS_MODULE_NAME_LEN - 1);
	if (!valid_name(li->name))
		return load_fail(li, -ENOEXEC, "no valid name= in .modinfo (letters, digits, _ and -, "
				 "at most %d)", QS_MODULE_NAME_LEN - 1);
	return 0;
}

int parse_modinfo(struct load_info *li)
{
	const struct elf64_shdr *s = &li->sh[li->modinfo_idx];
	const char *p = (const char *)li->image + s->offset, *end = p + s->size;
	int err;

	if (s->size == 0 || end[-1])
		return load_fail(li, -ENOEXEC, ".modinfo is not a list of NUL-terminated strings");
	for (; p < end; p += strlen(p) + 1) {
		if (!strncmp(p, "name=", 5) && !li->name)
			li->name = p + 5;
		else if (!strncmp(p, "vermagic=", 9))
			li->vermagic = p + 9;
		else if (!strncmp(p, "license=", 8))
			li->license = p + 8;
		else if (!strncmp(p, "description=", 12))
			li->description = p + 12;
		else if (!strncmp(p, "author=", 7))
			li->author = p + 7;
	}
	err = check_name(li, end);
	if (err)
		return err;
	if (!li->vermagic || strcmp(li->vermagic, QS_VERMAGIC))
		return load_fail(li, -ENOEXEC, "%s was built for kernel configuration '%s', this kernel "
				 "is '%s'", li->name, li->vermagic ? li->vermagic : "(none)",
				 QS_VERMAGIC);
	return 0;
}

/* The relocated .modparams, each entry checked; NULL (and *n = 0) if none. */
const struct module_param *module_params(const struct load_info *li, unsigned int *n)
{
	unsigned long addr;
	const struct module_param *p;

	*n = 0;
	if (!li->params_idx)
		return NULL;
	addr = sec_addr(li, li->params_idx);
	p = mod_buf(li, addr, li->sh[li->params_idx].size);
	*n = li->sh[li->params_idx].size / sizeof(*p);
	return p;
}

static int check_param(struct load_info *li, const struct module_param *p)
{
	static const u32 sizes[] = {
		[MODULE_PARAM_int] = sizeof(int), [MODULE_PARAM_uint] = sizeof(unsigned int),
		[MODULE_PARAM_bool] = sizeof(bool), [MODULE_PARAM_charp] = sizeof(char *),
	};
	unsigned long rw = li->base + li->region_base[REGION_RW];

	if (!mod_str(li, (unsigned long)p->name) ||
	    (p->desc && !mod_str(li, (unsigned long)p->desc)))
		return load_fail(li, -ENOEXEC, ".modparams: a name or description outside the module");
	if (p->type < MODULE_PARAM_int || p->type > MODULE_PARAM_charp || p->size != sizes[p->type])
		return load_fail(li, -ENOEXEC, ".modparams: %s has type %u, size %u",
				 (const char *)mod_buf(li, (unsigned long)p->name, 1), p->type, p->size);
	if ((unsigned long)p->addr < rw || !mod_buf(li, (unsigned long)p->addr, p->size) ||
	    (unsigned long)p->addr % p->size)
		return load_fail(li, -ENOEXEC, ".modparams: %s's variable is not in the module's data",
				 (const char *)mod_buf(li, (unsigned long)p->name, 1));
	return 0;
}

static int set_param(struct load_info *li, const struct module_param *p, char *val)
{
	void *var = mod_buf(li, (unsigned long)p->addr, p->size);
	const char *name = mod_buf(li, (unsigned long)p->name, 1);
	long v;

	if (p->type == MODULE_PARAM_bool) {
		bool b;

		if (!val || !strcmp(val, "1") || !strcmp(val, "y") || !strcmp(val, "true"))
			b = true;
		else if (!strcmp(val, "0") || !strcmp(val, "n") || !strcmp(val, "false"))
			b = false;
		else
			return load_fail(li, -EINVAL, "parameter %s: '%s' is not a bool", name, val);
		memcpy(var, &b, sizeof(b));
		return 0;
	}
	if (!val)
		return load_fail(li, -EINVAL, "parameter %s needs a value (%s=...)", name, name);
	if (p->type == MODULE_PARAM_charp) {
		memcpy(var, &val, sizeof(val));
		return 0;
	}
	if (kstrtol(val, 0, &v) || (p->type == MODULE_PARAM_int && (v < INT32_MIN || v > INT32_MAX)) ||
	    (p->type == MODULE_PARAM_uint && (v < 0 || v > (long)UINT32_MAX)))
		return load_fail(li, -EINVAL, "parameter %s: '%s' is not an %s", name, val,
				 p->type == MODULE_PARAM_int ? "int" : "unsigned int");
	memcpy(var, &(int){ (int)v }, sizeof(int));
	return 0;
}

static int set_word(struct load_info *li, const struct module_param *params, unsigned int n,
		    char *word)
{
	char *val = strchr(word, '=');

	if (val)
		*val++ = 0;
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(mod_buf(li, (unsigned long)params[i].name, 1), word))
			return set_param(li, &params[i], val);
	return load_fail(li, -EINVAL, "unknown parameter '%s' (%s takes %u parameter%s)", word,
			 li->name, n, n == 1 ? "" : "s");
}

/* Relocation done, li->mod->args not yet set. */
int parse_params(struct load_info *li, const char *params)
{
	unsigned int n;
	const struct module_param *p = module_params(li, &n);
	char *args, *s;
	int err;

	if (li->params_idx && (li->sh[li->params_idx].size % sizeof(*p) || !p))
		return load_fail(li, -ENOEXEC, ".modparams is not an array of parameters");
	for (unsigned int i = 0; i < n; i++)
		if ((err = check_param(li, &p[i])))
			return err;
	li->mod->nparams = n;
	args = kmalloc(strlen(params ? params : "") + 1);
	if (!args)
		return load_fail(li, -ENOMEM, "out of memory");
	strlcpy(args, params ? params : "", strlen(params ? params : "") + 1);
	li->mod->args = args;
	for (s = args; *s;) {
		char *word;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		word = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n')
			s++;
		if (*s)
			*s++ = 0;
		if ((err = set_word(li, p, n, word)))
			return err;
	}
	return 0;
}
