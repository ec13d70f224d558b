/*
 * c2c.so: cache-line coherence, counted in the emulator (docs/figures.md,
 * "Cache-line transfers"). A TCG plugin for QEMU's interface version 1
 * (plugin_api.h): every guest load and store goes through mem_cb(), which
 * keeps, per 64-byte physical line, which vCPUs hold a copy and whether
 * one holds it modified, and counts per vCPU and per guest instruction:
 *
 *   loads, stores      plain accesses
 *   rmw                locked read-modify-writes: a 0xF0 prefix, or xchg
 *                      with a memory operand (locked without the prefix);
 *                      QEMU reports an atomic as a load and then a store,
 *                      and the pair is one access (the store's), as it is
 *                      one request for ownership on hardware
 *   xfer               the line's data came from another vCPU's cache: a
 *                      load or store of a line another vCPU holds modified
 *                      (perf c2c's HITM), or an access by a vCPU without
 *                      a copy to a line only others hold clean
 *   inval              a store that took the line from other holders
 *   cold               the first access to a line nobody holds
 *
 * The caches are infinite (nothing is evicted) and every vCPU's is one
 * level: what is counted is the sharing the code causes, not what a
 * given machine's capacity adds. Lines are physical, so a page mapped
 * twice is one line, as on hardware.
 *
 * Thread safety: under MTTCG each vCPU is a host thread. A line's state
 * is one 64-bit word changed by compare-and-swap, in an open-addressed
 * table whose slots are claimed by compare-and-swap on their key; the
 * counts are per vCPU (each written by its own thread only). The only
 * lock is taken when code is translated and on the guest's marks, both
 * rare against accesses.
 *
 * Marks: the guest (kernel/lib/c2c_mark.c) writes bytes to a reserved
 * area, one store per byte at area + byte (interface version 1 shows a
 * store's address, not its value), and a store at area + 256 ends a
 * message. Messages: "B id label" a benchmark cell begins on this vCPU,
 * "E id" it ends, "P" and "R" pause and resume this vCPU's counting in its
 * open cell (a wait between rounds), "A ptr size site" kmalloc returned
 * ptr, "F ptr" kfree.
 * Stores to the area are not counted.
 *
 * Arguments: out=FILE (the counts, written at exit; tools/c2c.py reads
 * them), mark=VADDR (the area's virtual address, from the ELF),
 * lines=LOG2 (the line table's slots, default 22), detail=LOG2 (default 20;
 * 0: no line views, the cells' and instructions' counts only), all=1 (the
 * line views inside cells keep every line, not only those that moved: a
 * line one CPU alone writes is what a private line is, and
 * tools/c2c.py's quiescent-state count needs those too).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_api.h"

C2C_PLUGIN_EXPORT int qemu_plugin_version = C2C_PLUGIN_API_VERSION;

#define MAX_VCPUS	48		/* the holders mask's bits below the owner field */
#define OWNER_SHIFT	56		/* state: bits 0-47 holders, 56-63 modified owner + 1 */
#define HOLDERS(s)	((s) & ((1ULL << MAX_VCPUS) - 1))
#define OWNER(s)	((int)((s) >> OWNER_SHIFT) - 1)
#define MARK_SIZE	512
#define MARK_END	256
#define MAX_CELLS	8190		/* + 1 fits the detail key's 13 bits */
#define MSG_MAX		240

enum { C_LOADS, C_STORES, C_RMW, C_XFER, C_INVAL, C_COLD, C_INSNS, C_NR };
_Static_assert(C_NR <= 8, "an instruction's counts fit a host cache line per vCPU");

/* One guest instruction that touches memory: its counts per vCPU. */
struct insn {
	uint64_t vaddr;
	uint32_t id;
	uint8_t locked;
	/* [vcpu][C_*], a host cache line per vCPU: the vCPUs' threads run the
	 * same instructions at once, and shared host lines would slow them */
	uint64_t (*c)[8];
	struct insn *next;	/* hash chain, translation only */
};

struct line {
	uint64_t key;		/* physical line number + 1; 0: free slot */
	uint64_t state;
	uint64_t vaddr;		/* a virtual address it was seen at (the first transfer's) */
	uint32_t xfers;		/* transfers and invalidations: detail is kept once non-zero */
	uint32_t seq;		/* marks seen before that first transfer (kmalloc log order) */
};

/* Per line, instruction, vCPU and cell: what the report's line view shows. */
#define DETAIL_KEY(ln, id, cell, cpu) \
	((((uint64_t)(ln) << 39) | ((uint64_t)(id) << 19) | ((uint64_t)(cell) << 6) | (cpu)) + 1)
struct detail {
	uint64_t key;		/* DETAIL_KEY(line < 2^24, insn id < 2^20, cell + 1 < 2^13, vcpu) */
	uint32_t c[C_INSNS];
	uint64_t offsets;	/* bit i: byte i of the line was touched */
};

struct vcpu {
	uint64_t c[C_NR];
	uint64_t snap[C_NR];	/* at the open cell's begin mark */
	int cell;		/* -1: none open */
	int paused;		/* inside "P" .. "R" */
	int len;
	char msg[MSG_MAX + 1];
} __attribute__((aligned(64)));

struct cell {
	uint64_t c[C_NR];
	uint32_t vcpus;
	char label[64];
};

static struct vcpu *vcpus;
static int nvcpus;
static struct line *lines;
static uint64_t line_mask;
static struct detail *details;
static uint64_t detail_mask;
static uint64_t line_drops, detail_drops, io_accesses;
static uint64_t mark_base;
static int all_lines;			/* all=1: detail for unmoved lines inside cells */
static char *out_path;
static struct cell cells[MAX_CELLS];
static uint32_t seq;			/* alloc/free marks so far */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;	/* translation and marks */
#define INSN_HASH	(1 << 16)
static struct insn *insn_hash[INSN_HASH];
static struct insn **insn_list;
static uint32_t ninsns, insn_cap;
static FILE *log_tmp;			/* alloc/free marks, in order */

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static struct line *line_get(uint64_t ln)
{
	uint64_t key = ln + 1, i = hash64(ln) & line_mask;

	for (uint64_t probes = 0; probes < 64; probes++, i = (i + 1) & line_mask) {
		uint64_t k = __atomic_load_n(&lines[i].key, __ATOMIC_ACQUIRE), zero = 0;

		if (k == key)
			return &lines[i];
		if (!k) {
			if (__atomic_compare_exchange_n(&lines[i].key, &zero, key, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return &lines[i];
			if (zero == key)
				return &lines[i];
		}
	}
	__atomic_add_fetch(&line_drops, 1, __ATOMIC_RELAXED);
	return NULL;
}

static struct detail *detail_get(uint64_t ln, uint32_t id, unsigned int cell, unsigned int cpu)
{
	uint64_t key = DETAIL_KEY(ln, id, cell, cpu);
	uint64_t i = hash64(key) & detail_mask;

	for (uint64_t probes = 0; probes < 64; probes++, i = (i + 1) & detail_mask) {
		uint64_t k = __atomic_load_n(&details[i].key, __ATOMIC_ACQUIRE), zero = 0;

		if (k == key)
			return &details[i];
		if (!k) {
			if (__atomic_compare_exchange_n(&details[i].key, &zero, key, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return &details[i];
			if (zero == key)
				return &details[i];
		}
	}
	__atomic_add_fetch(&detail_drops, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* ---- the guest's marks */

static void mark_message(unsigned int cpu, struct vcpu *v)
{
	unsigned long long a = 0, b = 0, c = 0;
	int id, n = 0;

	v->msg[v->len] = 0;
	if (v->msg[0] == 'B' && sscanf(v->msg, "B %d %n", &id, &n) == 1 && id >= 0 && id < MAX_CELLS) {
		v->cell = id;
		v->paused = 0;
		memcpy(v->snap, v->c, sizeof(v->snap));
		pthread_mutex_lock(&lock);
		if (!cells[id].label[0])
			snprintf(cells[id].label, sizeof(cells[id].label), "%s", v->msg + n);
		pthread_mutex_unlock(&lock);
	} else if (v->msg[0] == 'P' && v->cell >= 0 && !v->paused) {
		for (int i = 0; i < C_NR; i++)
			__atomic_add_fetch(&cells[v->cell].c[i], v->c[i] - v->snap[i], __ATOMIC_RELAXED);
		v->paused = 1;
	} else if (v->msg[0] == 'R' && v->cell >= 0 && v->paused) {
		memcpy(v->snap, v->c, sizeof(v->snap));
		v->paused = 0;
	} else if (v->msg[0] == 'E' && sscanf(v->msg, "E %d", &id) == 1 && id == v->cell) {
		if (!v->paused)
			for (int i = 0; i < C_NR; i++)
				__atomic_add_fetch(&cells[id].c[i], v->c[i] - v->snap[i], __ATOMIC_RELAXED);
		__atomic_add_fetch(&cells[id].vcpus, 1, __ATOMIC_RELAXED);
		v->cell = -1;
		v->paused = 0;
	} else if (v->msg[0] == 'A' && sscanf(v->msg, "A %llx %llx %llx", &a, &b, &c) == 3) {
		pthread_mutex_lock(&lock);
		fprintf(log_tmp, "alloc %u %llx %llu %llx\n", seq, a, b, c);
		__atomic_add_fetch(&seq, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&lock);
	} else if (v->msg[0] == 'F' && sscanf(v->msg, "F %llx", &a) == 1) {
		pthread_mutex_lock(&lock);
		fprintf(log_tmp, "free %u %llx\n", seq, a);
		__atomic_add_fetch(&seq, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&lock);
	}
	v->len = 0;
}

static void mark_store(unsigned int cpu, uint64_t off)
{
	struct vcpu *v = &vcpus[cpu];

	if (off < MARK_END) {
		if (v->len < MSG_MAX)
			v->msg[v->len++] = (char)off;
	} else if (off == MARK_END) {
		mark_message(cpu, v);
	}
}

/* ---- the coherence model */

static void mem_cb(unsigned int cpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct insn *in = udata;
	bool store = qemu_plugin_mem_is_store(info);
	struct qemu_plugin_hwaddr *hw;
	struct vcpu *v;
	struct line *l;
	uint64_t pa, ln, s, ns, me;
	int ev = -1, kind;
	bool inval = false;

	if (cpu >= (unsigned int)nvcpus)
		return;
	if (store && vaddr - mark_base < MARK_SIZE && mark_base) {
		mark_store(cpu, vaddr - mark_base);
		return;
	}
	if (in->locked && !store)
		return;			/* an atomic's load half: its store half counts it */
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw)) {
		__atomic_add_fetch(&io_accesses, 1, __ATOMIC_RELAXED);	/* device registers: no line */
		return;
	}
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	ln = pa >> 6;
	l = line_get(ln);
	v = &vcpus[cpu];
	kind = in->locked ? C_RMW : store ? C_STORES : C_LOADS;
	v->c[kind]++;
	in->c[cpu][kind]++;
	if (!l)
		return;
	me = 1ULL << cpu;
	s = __atomic_load_n(&l->state, __ATOMIC_RELAXED);
	do {
		uint64_t holders = HOLDERS(s);
		int owner = OWNER(s);

		ev = -1;
		inval = false;
		if (!store) {
			if (owner >= 0 && owner != (int)cpu)
				ev = C_XFER;		/* HITM: it leaves the owner shared */
			else if (!(holders & me))
				ev = holders ? C_XFER : C_COLD;
			/* an owner elsewhere keeps a shared copy; my own modified copy stays so */
			ns = owner == (int)cpu ? s : holders | me;
		} else {
			if (owner == (int)cpu)
				ns = s;			/* already modified here */
			else {
				if (!(holders & me))
					ev = holders ? C_XFER : C_COLD;
				else if (owner >= 0)
					ev = C_XFER;
				inval = (holders & ~me) != 0;
				ns = me | ((uint64_t)(cpu + 1) << OWNER_SHIFT);
			}
		}
		if (ns == s)
			break;
	} while (!__atomic_compare_exchange_n(&l->state, &s, ns, true, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	if (ev >= 0) {
		v->c[ev]++;
		in->c[cpu][ev]++;
	}
	if (inval) {
		v->c[C_INVAL]++;
		in->c[cpu][C_INVAL]++;
	}
	if ((ev == C_XFER || inval) && __atomic_fetch_add(&l->xfers, 1, __ATOMIC_RELAXED) == 0) {
		l->vaddr = vaddr;
		l->seq = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
	}
	/* the cell this vCPU is counting for, + 1; 0 outside cells and pauses */
	unsigned int cell = v->cell >= 0 && !v->paused ? v->cell + 1 : 0;

	if (all_lines && cell && !__atomic_load_n(&l->vaddr, __ATOMIC_RELAXED))
		__atomic_store_n(&l->vaddr, vaddr, __ATOMIC_RELAXED);	/* to name it by */
	if (details && (__atomic_load_n(&l->xfers, __ATOMIC_RELAXED) || (all_lines && cell)) &&
	    in->id < (1u << 20) && ln < (1u << 24)) {
		struct detail *d = detail_get(ln, in->id, cell, cpu);

		if (d) {
			unsigned int off = pa & 63, size = 1u << qemu_plugin_mem_size_shift(info);
			uint64_t bits = size >= 64 ? ~0ULL : ((1ULL << size) - 1) << off;

			d->c[kind]++;
			if (ev >= 0)
				d->c[ev]++;
			if (inval)
				d->c[C_INVAL]++;
			d->offsets |= bits;
		}
	}
}

/* ---- translation */

/* Locked: a lock prefix among the prefixes, or xchg (0x86, 0x87) with a
 * memory operand, which the processor locks without one. */
static bool insn_locked(const uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i < n; i++) {
		uint8_t b = p[i];

		if (b == 0xf0)
			return true;
		if (b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 ||
		    b == 0x64 || b == 0x65 || b == 0x66 || b == 0x67)
			continue;
		break;
	}
	if (i < n && (p[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i + 1 < n && (p[i] == 0x86 || p[i] == 0x87))
		return (p[i + 1] >> 6) != 3;	/* ModRM.mod 3: register operands */
	return false;
}

static struct insn *insn_get(uint64_t vaddr, const uint8_t *data, size_t size)
{
	unsigned int h = hash64(vaddr) & (INSN_HASH - 1);
	struct insn *in;

	for (in = insn_hash[h]; in; in = in->next)
		if (in->vaddr == vaddr)
			return in;
	in = calloc(1, sizeof(*in));
	if (in)
		in->c = aligned_alloc(64, nvcpus * sizeof(*in->c));
	if (in && in->c)
		memset(in->c, 0, nvcpus * sizeof(*in->c));
	if (!in || !in->c) {
		fprintf(stderr, "c2c: out of memory\n");
		abort();
	}
	in->vaddr = vaddr;
	in->locked = insn_locked(data, size);
	in->id = ninsns;
	in->next = insn_hash[h];
	insn_hash[h] = in;
	if (ninsns == insn_cap) {
		insn_cap = insn_cap ? insn_cap * 2 : 65536;
		insn_list = realloc(insn_list, insn_cap * sizeof(*insn_list));
		if (!insn_list)
			abort();
	}
	insn_list[ninsns++] = in;
	return in;
}

static void tb_exec(unsigned int cpu, void *udata)
{
	if (cpu < (unsigned int)nvcpus)
		vcpus[cpu].c[C_INSNS] += (uintptr_t)udata;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
		struct insn *in = insn_get(qemu_plugin_insn_vaddr(qi), qemu_plugin_insn_data(qi),
					   qemu_plugin_insn_size(qi));

		qemu_plugin_register_vcpu_mem_cb(qi, mem_cb, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, in);
	}
	pthread_mutex_unlock(&lock);
}

/* ---- the output */

static void write_counts(qemu_plugin_id_t id, void *udata)
{
	static const char *const names[C_NR] = { "loads", "stores", "rmw", "xfer", "inval", "cold", "insns" };
	FILE *f = fopen(out_path, "w");
	char buf[256];
	int ch;

	if (!f) {
		snprintf(buf, sizeof(buf), "c2c: cannot write %s: %s\n", out_path, strerror(errno));
		qemu_plugin_outs(buf);
		return;
	}
	fprintf(f, "c2c 1 vcpus %d\ncolumns", nvcpus);
	for (int i = 0; i < C_NR; i++)
		fprintf(f, " %s", names[i]);
	fprintf(f, "\ndrops lines %" PRIu64 " detail %" PRIu64 " io %" PRIu64 "\n", line_drops,
		detail_drops, io_accesses);
	for (int c = 0; c < nvcpus; c++) {
		fprintf(f, "cpu %d", c);
		for (int i = 0; i < C_NR; i++)
			fprintf(f, " %" PRIu64, vcpus[c].c[i]);
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < ninsns; i++)
		for (int c = 0; c < nvcpus; c++) {
			uint64_t *k = insn_list[i]->c[c];

			if (!(k[C_LOADS] | k[C_STORES] | k[C_RMW]))
				continue;
			fprintf(f, "insn %" PRIx64 " %d %d", insn_list[i]->vaddr, insn_list[i]->locked, c);
			for (int j = 0; j < C_INSNS; j++)
				fprintf(f, " %" PRIu64, k[j]);
			fputc('\n', f);
		}
	for (uint64_t i = 0; i <= line_mask; i++)
		if (lines[i].key && (lines[i].xfers || (all_lines && lines[i].vaddr)))
			fprintf(f, "line %" PRIx64 " %" PRIx64 " %u %u\n", (lines[i].key - 1) << 6,
				lines[i].vaddr, lines[i].seq, lines[i].xfers);
	for (uint64_t i = 0; details && i <= detail_mask; i++) {
		struct detail *d = &details[i];
		uint64_t k = d->key - 1;

		if (!d->key)
			continue;
		fprintf(f, "acc %" PRIx64 " %" PRIx64 " %u %d", (k >> 39) << 6,
			insn_list[(k >> 19) & 0xfffff]->vaddr, (unsigned int)(k & 63),
			(int)((k >> 6) & 0x1fff) - 1);
		for (int j = 0; j < C_INSNS; j++)
			fprintf(f, " %u", d->c[j]);
		fprintf(f, " %" PRIx64 "\n", d->offsets);
	}
	for (int i = 0; i < MAX_CELLS; i++) {
		if (!cells[i].vcpus)
			continue;
		fprintf(f, "cell %d %u", i, cells[i].vcpus);
		for (int j = 0; j < C_NR; j++)
			fprintf(f, " %" PRIu64, cells[i].c[j]);
		fprintf(f, " %s\n", cells[i].label);
	}
	rewind(log_tmp);
	while ((ch = fgetc(log_tmp)) != EOF)
		fputc(ch, f);
	fclose(f);
}

static int parse_args(int argc, char **argv, unsigned int *lbits, unsigned int *dbits)
{
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			goto bad;
		*eq = 0;
		if (!strcmp(argv[i], "out"))
			out_path = strdup(eq + 1);
		else if (!strcmp(argv[i], "mark"))
			mark_base = strtoull(eq + 1, NULL, 16);
		else if (!strcmp(argv[i], "lines"))
			*lbits = atoi(eq + 1);
		else if (!strcmp(argv[i], "detail"))
			*dbits = atoi(eq + 1);
		else if (!strcmp(argv[i], "all"))
			all_lines = atoi(eq + 1);
		else
			goto bad;
		*eq = '=';
	}
	if (out_path && *lbits >= 10 && *lbits <= 28 && (*dbits == 0 || (*dbits >= 10 && *dbits <= 26)))
		return 0;
bad:
	fprintf(stderr, "c2c: arguments: out=FILE [mark=VADDR] [lines=10..28] [detail=0|10..26] [all=0|1]\n");
	return -1;
}

C2C_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					  int argc, char **argv)
{
	unsigned int lbits = 22, dbits = 20;

	/* The declarations in plugin_api.h are version 1's: refuse a QEMU
	 * that no longer speaks it rather than call through a guess. */
	if (info->version.min > C2C_PLUGIN_API_VERSION || info->version.cur < C2C_PLUGIN_API_VERSION) {
		fprintf(stderr, "c2c: QEMU's plugin interface is versions %d..%d; this plugin knows %d\n",
			info->version.min, info->version.cur, C2C_PLUGIN_API_VERSION);
		return -1;
	}
	if (!info->system_emulation) {
		fprintf(stderr, "c2c: needs system emulation (physical lines)\n");
		return -1;
	}
	if (parse_args(argc, argv, &lbits, &dbits))
		return -1;
	nvcpus = info->system.max_vcpus;
	if (nvcpus > MAX_VCPUS || nvcpus < 1) {
		fprintf(stderr, "c2c: %d vCPUs; at most %d\n", nvcpus, MAX_VCPUS);
		return -1;
	}
	line_mask = (1ULL << lbits) - 1;
	detail_mask = dbits ? (1ULL << dbits) - 1 : 0;
	lines = calloc(line_mask + 1, sizeof(*lines));
	details = dbits ? calloc(detail_mask + 1, sizeof(*details)) : NULL;
	vcpus = aligned_alloc(64, nvcpus * sizeof(*vcpus));
	log_tmp = tmpfile();
	if (!lines || (dbits && !details) || !vcpus || !log_tmp) {
		fprintf(stderr, "c2c: out of memory\n");
		return -1;
	}
	memset(vcpus, 0, nvcpus * sizeof(*vcpus));
	for (int i = 0; i < nvcpus; i++)
		vcpus[i].cell = -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
