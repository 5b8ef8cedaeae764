/*
 * Generic double-dummy solver core for trick-taking games of the Bridge
 * family with any number of suits, ranks per suit and identical copies per
 * card (within the limits below).  Used for Flower Bridge (3 x 10 x 2) and
 * for standard Contract Bridge (4 x 13 x 1).
 *
 * Rule implemented (Flower Bridge R12, also true in Bridge where no two cards
 * are equal): a card takes over a trick only by OUTRANKING the card
 * currently winning it, so of two identical cards the one played first wins.
 *
 * Search: boolean null-window alpha-beta ("can North-South take at least T
 * tricks?") driven by an MTD(f)-style loop on T; a transposition table at
 * trick boundaries keyed on relative ranks; quick-tricks / later-tricks
 * cut-offs at the start of each trick, and for the second and third hands
 * when their side surely wins the trick; one move per group of equivalent
 * cards; heuristic move ordering plus the best lead remembered in the table,
 * and at the root the leads the table shows, one trick ahead, to succeed.
 *
 * Transposition table.  A stored result is valid for every position with
 * the same leader, trump, suit lengths in every hand and the same holders of
 * the "relevant" top cards of each suit: each search returns, per suit, a
 * rank threshold such that the proof used only cards at or above it (the
 * card that won a trick by outranking a card of its suit, the cards counted
 * as quick tricks, ...); cards below the threshold only count by number.
 * Holdings are written as relative ranks: per remaining rank, which hands
 * hold how many copies; ranks held by one hand alone are written one code
 * per copy, because such adjacent cards are interchangeable.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <setjmp.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MAXS 8          /* suits */
#define MAXR 16         /* ranks per suit (rank masks are 32-bit) */
#define MAXC 4          /* identical copies per card the tables are sized for */
#define MAXT 64         /* tricks (cards per hand) */
#define MAXMOVES (MAXS * MAXR)
#define MAXSLOTS (MAXR * MAXC)
#define SCACHE (MAXS * 1024)    /* suit codes kept, shared out among the suits */
#define MAXW 8          /* 128-bit words of a packed position code (MAXS * 128 bits) */
#define NIL 0u
/* Entries a look-up reads past the first that decides, for one with a wider
 * region (see tt_lookup). */
#define TT_WIDER 8
#define TT_MIN_TRICKS 1  /* shallower positions are re-searched, not stored */
#define ROOT_LEAD_BONUS 1000   /* root_leads: above any lead score's range */
#define ROOT_LEADS_MIN 8        /* root_leads from so many tricks left (a smaller search would pay more for its look-ups) */
#define ETC_MIN_CARDS 11 /* the fourth hand probes the table for its cards from this many cards up */
/* Lead ordering: the cost of one opponent reply to a lead, in hundredths
 * of the lead weights' unit (see lead_scores), at No Trump and with trumps. */
#define LEAD_REPLY_NT 674
#define LEAD_REPLY_TRUMP 985

/* The search is compiled once for any geometry (this file alone: GEO_S 0,
 * the numbers of suits, ranks and copies read from the context) and once
 * for each geometry it is mostly used for, with those numbers known to the
 * compiler (_core_bridge.c, _core_flower.c include this file): loops over
 * suits unroll and the tests on copies fold away.  Each compilation exports
 * its entry points under its own name (GEO_FN); the Python object, compiled
 * with the generic one only, picks them by geometry (Geo). */
#ifndef GEO_S
#define GEO_S 0
#define GEO_R 0
#define GEO_C 0
#define GEO_NAME any
#endif
#define GS(c) (GEO_S ? GEO_S : (c)->S)
#define GR(c) (GEO_R ? GEO_R : (c)->R)
#define GC(c) (GEO_C ? GEO_C : (c)->C)
/* words of a packed position code (Ctx.kw), from the codes' bits that
 * init_codes gives: 2 with one copy a card (4 codes), 4 with two (10) */
#define GEO_KW (GEO_C == 1 || GEO_C == 2 ? (GEO_S * GEO_R * GEO_C * 2 * GEO_C + 127) / 128 : 0)
#define GK(c) (GEO_KW ? GEO_KW : (c)->kw)
/* RELH (the Flower Bridge build): a search's region also says, for the
 * threshold rank t = rel[s] of each suit, which hands' copies of t the proof
 * relied on: rel[4 + s], a bit a hand (0xf: every copy, as for any rank
 * above t); in the middle of a trick its high four bits also mark hands
 * whose card played to the trick is not a copy of t (rel_win, rel_played;
 * none at a trick's start).  See tt_store for the argument.  Several bounds lower rel[s]
 * without writing rel[4 + s]: right only because each works on a region
 * just reset to every copy (rel_reset) and the one bound that writes a
 * partial set (the trump count in search) returns at once; a new bound
 * that writes a partial set of copies must keep it so. */
#define RELH (GEO_C == 2 && GEO_S && GEO_S <= 3)
/* Does suit s's field of a packed code (Ctx.sb bits at s sb, init_codes's
 * code bits: 2 with one copy a card, 4 with two) reach into word w?  Known
 * to the compiler in the Bridge and Flower builds, else assumed. */
#define GEO_SB (GEO_C == 1 ? GEO_R * 2 : GEO_C == 2 ? GEO_R * 2 * 4 : 0)
#define IN_WORD(s, w) (!GEO_SB || ((s) * GEO_SB < 128 * ((w) + 1) && ((s) + 1) * GEO_SB > 128 * (w)))
#define GEO_CAT2(a, b) a##_##b
#define GEO_CAT(a, b) GEO_CAT2(a, b)
#define GEO_FN(name) GEO_CAT(name, GEO_NAME)

typedef unsigned __int128 u128;

/* bits of a length field (init_codes: the least lb >= 1 with 2^lb > R C), and
 * whether the packed lengths of a specialized build fit in one 64-bit word
 * (Contract Bridge 64 bits, Flower Bridge 60): play and the tests of the
 * packed lengths then need no 128-bit arithmetic */
#define GEO_RC (GEO_R * GEO_C)
#define GEO_LB (GEO_RC < 2 ? 1 : GEO_RC < 4 ? 2 : GEO_RC < 8 ? 3 : GEO_RC < 16 ? 4 : GEO_RC < 32 ? 5 : GEO_RC < 64 ? 6 : 7)
#define LK64 (GEO_S && 4 * GEO_S * GEO_LB <= 64)
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || !LK64, "LK64 reads the low word of a u128 as its first");

typedef struct { uint8_t s, r; } Move;

/* One stored bound.  key: the packed position code (see PosKey) with only
 * the top n[s] codes of each suit s kept, the rest zero. */
typedef struct {
    uint8_t lower;      /* 1: NS take >= val more tricks; 0: NS take <= val */
    uint8_t val;
    uint8_t bs, bg;     /* best lead: suit, group index from the top (0xff: none) */
    uint8_t n[MAXS];
    uint8_t deep;       /* 1: some n[s] (less one where dem[s]) exceeds the codes a fingerprint holds; 2: some dem[s] */
    /* RELH: per suit 0, or 0x80 | X << 4 | A where the suit's lowest kept
     * code is of a rank t whose copy of hand X alone the proof relied on
     * (see tt_store): the region takes there any code of X alone or of X
     * and one hand of the mask A */
    uint8_t dem[3];
    u128 key[];
} Entry;

#define BLK 4
/* Entries of one distribution are kept in blocks of BLK, contiguous in memory
 * so that scanning them is cheap.  A scan first reads the blocks' short
 * fingerprints of the entries' regions (a few top codes per suit, see
 * PosKey.fp) and looks at an entry itself only when its fingerprint matches. */
typedef struct {
    uint32_t next;
    uint32_t count;
    /* next as a byte offset, next * TT.bstride (0: none), so that a scan
     * reaches the next block with no multiplication: kept outside the
     * Bridge build (BLK_NOFF; measured: more instructions there) */
    uint64_t noff;
    uint64_t fp[BLK];   /* entry's fingerprint: position's fp under fm */
    uint64_t fm[BLK];
    /* BLK entries follow */
} Block;

/* A list of entries sharing suit lengths of every hand, leader, trump and,
 * for each suit whose top card is relevant, that card's holders.  A lookup
 * probes one list per subset of suits (2^S lists), each short. */
typedef struct {
    uint64_t d[2];
    uint64_t sig;       /* per suit: 0 = no relevant card, else 1 + code of the top card */
    uint32_t next;      /* bucket chain (index + 1) */
    uint32_t block;     /* newest block (index + 1) */
    uint32_t meta;
    uint32_t nblocks;
    /* blocks set aside for the list's next blocks, rlo .. rhi - 1 (taken
     * from the top down; see tt_store) */
    uint32_t rlo, rhi;
} Dist;

/* A list that grows takes its next blocks from a run of consecutive ones
 * set aside for it, as many as it has (at most RUN): its newest block
 * comes first in memory and older ones follow, so that a look-up's walk
 * from the newest block to older ones mostly moves forward by one block,
 * which the processor fetches ahead, instead of jumping across the table
 * at each block. */
#define RUN 32

#define MAXBLK 256        /* blocks per list: older entries are dropped beyond (a multiple of RUN) */

typedef struct {
    /* read by every look-up, written only by tt_init and a clear */
    uint32_t *head;     /* bucket -> distribution chain (index + 1) */
    size_t nh;          /* power of two */
    int hshift;         /* 64 - log2(nh): dist_bucket takes a hash's top bits */
    Dist *dists;
    size_t dcap;
    char *blocks;
    size_t es, bstride, bcap;
    /* per distribution (hashed): which subsets of suits have lists, so that
     * a look-up probes only those; tag 0 = none, 0xffff = unknown (all),
     * else the distribution's: 1 + 15 bits of its hash (a shift, where a
     * modulo to 16 bits cost more; a tag shared by two distributions only
     * makes the look-up probe lists that are not there) */
    uint32_t *summary;
    /* shared: the table serves the searches of several threads at once
     * (Solver.share): stores take `lock`, never reuse a block, and publish
     * what they write in an order that lets a look-up run beside them
     * without a lock (see tt_store) */
    int shared;
    /* shared: a sequence lock's count, odd while a store clears the table
     * (tt_full); a look-up skips the table on an odd one and drops what it
     * found if the count changed meanwhile (tt_lookup) */
    uint32_t gen;
    char *bmem;         /* the blocks' allocation: a zeroed block, index 0, then blocks */
    size_t sizes[4];    /* what tt_alloc gave for head, dists, bmem, summary */
    /* written by every store: a cache line of their own, so that one
     * thread's stores do not evict the line above from the others' caches */
    char pad[64];
    size_t dused, bused;
    long long clears;
    int lock;
} TT;

static inline void tt_lock(TT *t)
{
    while (__atomic_exchange_n(&t->lock, 1, __ATOMIC_ACQUIRE))
        for (unsigned spin = 1; __atomic_load_n(&t->lock, __ATOMIC_RELAXED); spin++) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            /* more threads than cores: the holder may be descheduled */
            if (!(spin & 1023)) sched_yield();
        }
}

static inline void tt_unlock(TT *t)
{
    __atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
}

/* Everything the table needs to know of a trick-boundary position.  pcode
 * holds the codes of all suits in one bit string, from the most significant
 * bit of word 0 down, suit s in a field of Ctx.sb bits at s * sb, so that a
 * stored region is matched by a few masked word compares. */
typedef struct {
    uint64_t d[2];
    unsigned meta;
    uint64_t hbase;
    /* per suit s, 6 bits at 6 s: 1 + its top code, 0 when void (the lists'
     * signatures are made of it); and the void suits, a bit each from bit
     * 56 (PART_NONE), so that a key ORs one word a suit for both */
    uint64_t part __attribute__((aligned(16)));
    uint64_t fp;        /* the top Ctx.fc codes of each suit, fc * codebits bits a suit */
    u128 pcode[MAXW + 1];
    uint8_t nslots[MAXS];
    /* into the suit codes of Ctx.sc: slotrank[s][j + 1] is the rank of
     * slot j, slotrank[s][0] is R (see SuitCode.rk) */
    const uint8_t *slotrank[MAXS];
} PosKey;

#define PART_NONE 56
_Static_assert(6 * MAXS <= PART_NONE && PART_NONE + MAXS <= 64, "a key's part holds the void suits above the signatures");

/* One suit's part of a position key: its code, and the rank of each code
 * slot from the top.  ver identifies the suit's holdings it was made for. */
typedef struct {
    uint64_t held[2];   /* the holdings it codes (see make_suit_code) */
    u128 field[2];      /* code placed in the packed words pw, pw + 1 of PosKey.pcode */
    /* its parts of PosKey.part (void: its bit from PART_NONE) and
     * PosKey.fp, a pair in that order, as there (see make_key_codes) */
    uint64_t lpart __attribute__((aligned(16)));
    uint64_t fpart;
    uint64_t ver;
    uint8_t pw;
    uint8_t n;
    /* rk[j + 1]: the rank of slot j; rk[0] = R, the threshold of no slot
     * (so that the threshold of a suit's top n slots is rk[n]) */
    uint8_t rk[1 + MAXSLOTS];
} SuitCode;

/* A cached suit code: the SuitCode up to its first 2 MAXR slots (all with
 * at most two copies), two cache lines, which alone are copied. */
#define SC_USED (offsetof(SuitCode, rk) + 1 + 2 * MAXR)
_Static_assert(SC_USED <= 128, "a cached suit code's used part fits in two cache lines");
typedef struct { SuitCode sc; } __attribute__((aligned(64))) CachedCode;

typedef struct {
    int S, R, C;
    int trump;                          /* -1: No Trump */
    uint8_t cnt[4][MAXS][MAXR];         /* copies of (suit, rank) per hand (read through CNT) */
    uint32_t pres[4][MAXS];             /* rank mask: hand holds >= 1 copy */
    uint32_t dup[4][MAXS];              /* rank mask: hand holds >= 2 copies */
    int len[4][MAXS];
    int hlen[4];
    int leader, k, ns, ti;              /* trick leader, cards on table, NS tricks since root, trick index */
    Move tc[MAXT + 1][4];
    Move killer[MAXT + 1][4];           /* last move to cause a cut-off, per trick and position */
    int wpos;                           /* position in trick of winning card */
    TT *tt;
    long long st_roots, nodes, st_lookups, st_hits, st_scan, st_qt, st_tricks;
    int codebits, lenbits;
    /* len[h][s] packed, lenbits each, kept up to date by play; where the
     * fields fit in 64 bits (LK64) the specialized builds work on the low
     * word alone (the high one stays zero) */
    union { u128 lenkey; uint64_t lenkey64[2]; };
    union { u128 lenunit[4][MAXS]; uint64_t lenunit64[4][MAXS][2]; };   /* 1 in the field of len[h][s] */
    union { u128 tmask; uint64_t tmask64[2]; };  /* the fields of the trump suit's lengths (No Trump: none) */
    int sb, kw;                         /* bits per suit in a packed code, words of it */
    u128 nmask[MAXS][MAXSLOTS + 1][MAXW + 1];   /* packed mask of the top n codes of suit s */
    int fc;                             /* codes per suit in a fingerprint */
    uint64_t fmask[MAXS][MAXSLOTS + 1]; /* fingerprint mask of the top n codes of suit s */
    int16_t code[(MAXC + 1) * (MAXC + 1) * (MAXC + 1) * (MAXC + 1)];
    int16_t single[4];
    uint8_t chold[16];                  /* C == 2: a code's holders, a bit a hand */
    /* C == 2: demacc[d & 63], for an entry's dem[s] = d (0x80 | X << 4 | A,
     * see tt_store), the codes its region takes at the suit's lowest kept
     * slot, a bit a code: X alone, or X and one hand of A */
    uint16_t demacc[64];
    /* C == 2: the codes of a rank, as 2 ^ (their length in bits) << 8 |
     * codes, by the mask of its holders (one copy each), or for a rank one
     * hand holds twice, by the complement of that hand's bit */
    uint32_t rcode[16];
    /* Suit codes are rebuilt only for suits whose holdings changed: every
     * play or load gives the suit a fresh version number (an undo restores
     * the old one), and sc[ti][s] keeps the code made at the last trick
     * start of trick ti.  cur[ti][s] points to the code the key at trick
     * start ti used, wherever it was made, so a trick start finds the code
     * of every suit not played to since the previous trick start, however
     * many tricks ago the code was made, or since the same trick's last
     * sibling. */
    uint64_t sver[MAXS], vclock;
    SuitCode sc[MAXT + 2][MAXS];
    /* Codes made lately, per suit, by a hash of the holdings (C <= 2): a
     * code is a function of them, and the same holdings recur in many
     * positions (transpositions, and the other tricks of a table).  Each
     * suit has SCACHE / S slots (scap; with fewer suits, more each). */
    CachedCode cache[SCACHE];
    uint32_t scap;
    const SuitCode *cur[MAXT + 2][MAXS];
    /* Stopping a search (see stop_check): stop is set by Solver.cancel()
     * from another thread; poll: the search runs on the main thread, where
     * it looks for signals (Ctrl-C) every POLL_MS, taking the GIL back with
     * ts, the thread state it was released with; jb: where a stopped search
     * returns to (RUN_SEARCH), stopped saying why (1: a signal handler
     * raised, 2: cancelled). */
    int stop, poll, stopped;
    long long next_poll;
    PyThreadState *ts;
    jmp_buf jb;
} Ctx;

/* Undo record; wrs/wrr: suit and rank of a trick's winner when it won by
 * outranking a card of its own suit (0xff otherwise). */
typedef struct {
    int wpos, leader, ns, done;
    uint8_t wrs, wrr;
#if RELH
    uint8_t wrm;        /* hands whose copy of wrr the trick relies on (see rel_win) */
    uint8_t wrp;        /* hands whose card played to the trick must not be a copy of wrr */
#endif
    uint64_t sver;
} Undo;

/* Highest set bit, -1 if none; clz ^ 31 rather than 31 - clz, which GCC
 * does not always reduce to a bare bsr where x is known to be nonzero. */
static inline int hb(uint32_t x) { return x ? __builtin_clz(x) ^ 31 : -1; }

#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
static const uint8_t popcnt8[256] = {B6(0), B6(1), B6(1), B6(2)};
#define B8(n) B6(n), B6(n + 1), B6(n + 1), B6(n + 2)
#if GEO_R && GEO_R <= 10
/* a rank mask's count in one look-up where ranks are at most ten */
static const uint8_t popcnt10[1024] = {B8(0), B8(1), B8(1), B8(2)};
#endif
#undef B8
#undef B2
#undef B4
#undef B6
/* nib8[m]: bit i of m moved to bit 4 i */
#define N2(n) n, n + 0x1, n + 0x10, n + 0x11
#define N4(n) N2(n), N2(n + 0x100), N2(n + 0x1000), N2(n + 0x1100)
#define N6(n) N4(n), N4(n + 0x10000), N4(n + 0x100000), N4(n + 0x110000)
static const uint32_t nib8[256] = {N6(0), N6(0x1000000), N6(0x10000000), N6(0x11000000)};
#undef N2
#undef N4
#undef N6

/* bit-parallel count: the extension is built for any x86-64, where
 * __builtin_popcount is a library call */
static inline int popc(uint32_t m)
{
    m = m - (m >> 1 & 0x55555555u);
    m = (m & 0x33333333u) + (m >> 2 & 0x33333333u);
    m = (m + (m >> 4)) & 0x0f0f0f0fu;
    return (int)(m * 0x01010101u >> 24);
}

/* Copies of (suit s, rank r) hand h holds.  With one or two copies a card
 * the search keeps only the rank masks up to date (play), and cnt holds the
 * position it was loaded with. */
#define CNT(c, h, s, r) (GC(c) == 1 ? (int)((c)->pres[h][s] >> (r) & 1) \
                         : GC(c) == 2 ? (int)(((c)->pres[h][s] >> (r) & 1) + ((c)->dup[h][s] >> (r) & 1)) \
                         : (int)(c)->cnt[h][s][r])

/* Cards of suit s that hand h holds at rank lo or above (one copy a rank:
 * a population count). */
static inline int count_from(const Ctx *c, int h, int s, int lo)
{
    uint32_t m = c->pres[h][s] >> lo;
    /* by table: the extension is built for any x86-64, where
     * __builtin_popcount is a library call; rank masks have MAXR <= 16 bits */
    if (GC(c) == 1) return popcnt8[m & 0xff] + popcnt8[m >> 8];
    /* two copies at most: a rank held twice is in dup as well */
    if (GC(c) == 2) {
        uint32_t d = c->dup[h][s] >> lo;
#if GEO_R && GEO_R <= 10
        return popcnt10[m] + popcnt10[d];
#else
        return popcnt8[m & 0xff] + popcnt8[m >> 8] + popcnt8[d & 0xff] + popcnt8[d >> 8];
#endif
    }
    int n = 0;
    while (m) {
        int r = __builtin_ctz(m);
        n += c->cnt[h][s][lo + r];
        m &= m - 1;
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Transposition table                                                 */

#ifndef GEO_SPECIAL       /* used by the Python object only */
/* The table's arrays are read at random: on 4 KB pages nearly every
 * look-up misses the TLB.  Ask for 2 MB pages (transparent huge pages,
 * where the system offers them on request) for arrays that large. */
#define HUGE_PAGE ((size_t)2 << 20)

/* The arrays of freed tables are kept for the next tables rather than given
 * back to the system at once: the first write to a page of fresh memory is
 * dear (the kernel zeroes it, and a virtual machine's host may back it only
 * then: about 3 ms a megabyte on the machine measured, so that a new 256 MB
 * table paid up to 0.7 s for pages the table before had already touched —
 * a DD table's team or a review's solver is made anew where the last was
 * dropped).  A kept array serves a request of its size or up to an eighth
 * less; at most PARK_MAX bytes are kept, the oldest given back first, and
 * release_memory() gives back all.  Tables are made and freed with the GIL
 * held (Solver's methods), which guards these.  What a kept array holds is
 * stale, as a cleared table's arrays are: nothing is read before the new
 * table writes it (tt_init, tt_clear). */
#define PARK_MAX ((size_t)320 << 20)    /* a default (256 MB) table's arrays, rounded up, and spare */
#define PARK_SLOTS 16
static struct { void *p; size_t n; } parked[PARK_SLOTS];
static int nparked;
static size_t parked_bytes;

static size_t huge_round(size_t bytes) { return (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1); }

/* An array of at least `bytes`; *size is what it holds (what tt_release is given back). */
static void *tt_alloc(size_t bytes, size_t *size)
{
    *size = bytes;
    if (bytes < HUGE_PAGE) return malloc(bytes);
    size_t n = huge_round(bytes);
    int best = -1;
    for (int i = 0; i < nparked; i++)
        if (parked[i].n >= n && parked[i].n - n <= n / 8 && (best < 0 || parked[i].n < parked[best].n)) best = i;
    if (best >= 0) {
        void *p = parked[best].p;
        *size = parked[best].n;         /* (kept as the size it is, not as asked) */
        parked_bytes -= parked[best].n;
        memmove(&parked[best], &parked[best + 1], (size_t)(nparked - best - 1) * sizeof parked[0]);
        nparked--;
        return p;
    }
    void *p = aligned_alloc(HUGE_PAGE, n);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

/* tt_alloc's counterpart: an array of `bytes` (the size tt_alloc gave) kept
 * for a later table, or freed */
static void tt_release(void *p, size_t bytes)
{
    if (!p) return;
    size_t n = huge_round(bytes);
    if (bytes < HUGE_PAGE || n > PARK_MAX) { free(p); return; }
    while (nparked && (nparked == PARK_SLOTS || parked_bytes + n > PARK_MAX)) {
        free(parked[0].p);                      /* the oldest kept */
        parked_bytes -= parked[0].n;
        memmove(&parked[0], &parked[1], (size_t)(nparked - 1) * sizeof parked[0]);
        nparked--;
    }
    parked[nparked].p = p;
    parked[nparked].n = n;
    nparked++;
    parked_bytes += n;
}

/* Give every kept array back to the system: the bytes given back. */
static size_t release_parked(void)
{
    size_t n = parked_bytes;
    for (int i = 0; i < nparked; i++) free(parked[i].p);
    nparked = 0;
    parked_bytes = 0;
    return n;
}

static int tt_init(TT *t, size_t bytes, int kw)
{
    size_t es = sizeof(Entry) + (size_t)kw * sizeof(u128);
    es = (es + 15) & ~(size_t)15;
    size_t bstride = sizeof(Block) + BLK * es;
    size_t bcap = (bytes / 4 * 3) / bstride;
    if (bcap < 64) bcap = 64;
    size_t dcap = (bytes / 5) / (sizeof(Dist) + sizeof(uint32_t));
    if (dcap < 256) dcap = 256;
    if (dcap > 0xfffffff0u) dcap = 0xfffffff0u;
    if (bcap > 0xfffffff0u) bcap = 0xfffffff0u;
    size_t nh = 1;
    while (nh * 2 <= dcap) nh *= 2;
    t->head = (uint32_t *)tt_alloc(nh * sizeof(uint32_t), &t->sizes[0]);
    t->dists = (Dist *)tt_alloc(dcap * sizeof(Dist), &t->sizes[1]);
    /* one block more, before the first: block index 0 (no block) is
     * memory that reads as an empty block */
    t->bmem = (char *)tt_alloc((bcap + 1) * bstride, &t->sizes[2]);
    t->blocks = t->bmem ? t->bmem + bstride : NULL;
    if (t->bmem) {
        memset(t->bmem, 0, bstride);
        /* and its entries decide nothing, hint nothing: a look-up that
         * walks onto it (only across a clear, see tt_lookup) takes none
         * (a zeroed entry would claim "NS take <= 0 more tricks" for every
         * position: lower 0, val 0, an empty region) */
        for (int j = 0; j < BLK; j++) {
            Entry *e = (Entry *)(t->bmem + sizeof(Block) + (size_t)j * es);
            e->val = 0xff;
            e->bs = e->bg = 0xff;
        }
    }
    t->summary = (uint32_t *)tt_alloc(nh * sizeof(uint32_t), &t->sizes[3]);
    if (t->head) memset(t->head, 0, nh * sizeof(uint32_t));
    if (t->summary) memset(t->summary, 0, nh * sizeof(uint32_t));
    if (!t->head || !t->dists || !t->blocks || !t->summary) {
        tt_release(t->summary, t->sizes[3]);
        t->summary = NULL;
        tt_release(t->head, t->sizes[0]);
        tt_release(t->dists, t->sizes[1]);
        tt_release(t->bmem, t->sizes[2]);
        t->head = NULL;
        t->dists = NULL;
        t->blocks = NULL;
        t->bmem = NULL;
        return -1;
    }
    t->nh = nh;
    t->hshift = 64 - __builtin_ctzll(nh);
    t->dcap = dcap;
    t->dused = 0;
    t->es = es;
    t->bstride = bstride;
    t->bcap = bcap;
    __atomic_store_n(&t->bused, 0, __ATOMIC_RELAXED);
    t->clears = 0;
    t->shared = 0;
    t->lock = 0;
    t->gen = 0;
    return 0;
}

static void tt_free(TT *t)
{
    if (t->head) {          /* (a table whose tt_init failed holds none) */
        tt_release(t->summary, t->sizes[3]);
        tt_release(t->head, t->sizes[0]);
        tt_release(t->dists, t->sizes[1]);
        tt_release(t->bmem, t->sizes[2]);
    }
    t->summary = NULL;
    t->head = NULL;
    t->dists = NULL;
    t->blocks = NULL;
    t->bmem = NULL;
}
#endif

static void tt_clear(TT *t)
{
    memset(t->summary, 0, t->nh * sizeof(uint32_t));
    memset(t->head, 0, t->nh * sizeof(uint32_t));
    t->dused = 0;
    __atomic_store_n(&t->bused, 0, __ATOMIC_RELAXED);   /* read by Solver.fill at any time */
    t->clears++;
}

/* A store finds the table full: it is cleared.  A shared one's look-ups
 * running meanwhile may read lists, blocks and entries as they are reused
 * (never out of the table's arrays, nor in a loop: see tt_lookup), so the
 * clear is marked in the generation count, and they drop what they found. */
static void tt_full(TT *t)
{
    if (t->shared) {
        /* a sequence lock's writer: odd while the table is cleared, even
         * again (a release store) once it is, so that a look-up that reads
         * an even number after the clear sees the cleared bucket heads,
         * never a list of before the clear whose memory this or a later
         * store reuses, and one that reads an odd number skips the table.
         * (With one bump before the clear only, a look-up could read the
         * new number, then a bucket head not yet zeroed, then the list's
         * blocks once reused by later stores: its check at the end passes
         * and it takes another distribution's entries, or block 0's.) */
        __atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        tt_clear(t);
        __atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
        return;
    }
    tt_clear(t);
}

static inline Block *tt_block(const TT *t, uint32_t idx)
{
    return (Block *)(t->blocks + (size_t)(idx - 1) * t->bstride);
}

static inline Entry *blk_entry(const TT *t, Block *b, int i)
{
    return (Entry *)((char *)b + sizeof(Block) + (size_t)i * t->es);
}

/* Do the top e->n[s] codes of every suit of the position match the entry?
 * (Compiled with the geometry's constants, GCC cannot see that
 * make_key_codes has written every word of pk->pcode that is read here, and
 * warns.) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
/* Do the top e->n[s] codes of every suit of the position match the entry? */
static inline int region_match(const Ctx *c, const Entry *e, const PosKey *pk)
{
    int S = GS(c);
    if (RELH && (e->deep & 2)) {
        /* a suit with dem[s]: its top n - 1 codes, then the lowest one's
         * (4 bits, never across a word) is one that dem[s] takes
         * (Ctx.demacc; the entry's own is one).  The top codes only where
         * the fingerprint does not hold them all (deep & 1, see tt_store). */
        if (e->deep & 1)
            for (int w = 0; w < GK(c); w++) {
                u128 m = 0;
                for (int s = 0; s < S; s++)
                    if (IN_WORD(s, w)) m |= c->nmask[s][e->n[s] - (e->dem[s] != 0)][w];
                if ((pk->pcode[w] ^ e->key[w]) & m) return 0;
            }
        for (int s = 0; s < S; s++) {
            if (!e->dem[s]) continue;
            int n = e->n[s];
            unsigned pc;
            /* in the fingerprint where it holds that code (fc codes of
             * 4 bits a suit, from the top, suit s at 64 - (s + 1) fc 4) */
            if (n <= c->fc) pc = (unsigned)(pk->fp >> (64 - 4 * (s * c->fc + n))) & 15;
            else {
                int p = s * GEO_SB + (n - 1) * 4, w = p >> 7, o = 124 - (p & 127);
                pc = (unsigned)(pk->pcode[w] >> o) & 15;
            }
            if (!(c->demacc[e->dem[s] & 63] >> pc & 1)) return 0;
        }
        return 1;
    }
    for (int w = 0; w < GK(c); w++) {
        u128 m = 0;
        for (int s = 0; s < S; s++) if (IN_WORD(s, w)) m |= c->nmask[s][e->n[s]][w];
        if ((pk->pcode[w] ^ e->key[w]) & m) return 0;
    }
    return 1;
}
#pragma GCC diagnostic pop

#ifndef GEO_SPECIAL       /* used by the Python object only */
/* OR a top-aligned suit code into the packed bit string at bit p0. */
static inline void put_field(u128 *w, int p0, u128 code)
{
    int i = p0 >> 7, o = p0 & 127;
    w[i] |= code >> o;
    if (o) w[i + 1] |= code << (128 - o);
}

/* ------------------------------------------------------------------ */
/* Position keys                                                        */

static void init_codes(Ctx *c)
{
    /* Every remaining rank is coded by the vector of copies per hand, except
     * that a rank held by a single hand is written as that many single-copy
     * codes: cards exclusive to one hand and adjacent among the remaining
     * cards are interchangeable, so {9,9} and {9,8} held alone are one
     * position. */
    int C = GC(c), n = 0;
    int B = C + 1;
    for (int i = 0; i < B * B * B * B; i++) c->code[i] = -1;
    for (int a = 0; a <= C; a++)
        for (int b = 0; b <= C; b++)
            for (int d = 0; d <= C; d++)
                for (int e = 0; e <= C; e++) {
                    int tot = a + b + d + e;
                    int holders = (a > 0) + (b > 0) + (d > 0) + (e > 0);
                    if (tot == 0 || tot > C) continue;
                    if (holders == 1 && tot > 1) continue;
                    if (n < 16) c->chold[n] = (uint8_t)((a > 0) | (b > 0) << 1 | (d > 0) << 2 | (e > 0) << 3);
                    c->code[((a * B + b) * B + d) * B + e] = (int16_t)n++;
                }
    for (int h = 0; h < 4; h++) {
        int v[4] = {0, 0, 0, 0};
        v[h] = 1;
        c->single[h] = c->code[((v[0] * B + v[1]) * B + v[2]) * B + v[3]];
    }
    for (int d = 0; d < 64; d++) {
        unsigned x = 1u << (d >> 4 & 3), ok = x | (d & 15), acc = 0;
        for (int k = 0; k < n && k < 16 && C == 2; k++)
            if ((c->chold[k] & x) && !(c->chold[k] & ~ok)) acc |= 1u << k;
        c->demacc[d] = (uint16_t)acc;
    }
    for (int m = 1; m < 15 && C == 2; m++) {
        int v[4] = {m & 1, m >> 1 & 1, m >> 2 & 1, m >> 3 & 1};
        int t = v[0] + v[1] + v[2] + v[3];
        if (t == 3) {
            int x = c->single[__builtin_ctz(~m & 15)];
            c->rcode[m] = (uint32_t)(256 << 8 | x << 4 | x);
        } else {
            c->rcode[m] = (uint32_t)(16 << 8 | c->code[((v[0] * B + v[1]) * B + v[2]) * B + v[3]]);
        }
    }
    int bits = 1;
    while ((1 << bits) < n) bits++;
    c->codebits = bits;
    int lb = 1;
    while ((1 << lb) <= GR(c) * C) lb++;
    c->lenbits = lb;
    if (4 * GS(c) * lb <= 128)           /* else the geometry is refused */
        for (int h = 0; h < 4; h++)
            for (int s = 0; s < GS(c); s++) c->lenunit[h][s] = (u128)1 << ((h * GS(c) + s) * lb);
}
#endif

/* make_suit_code for two copies at most: ten codes of 4 bits; a rank is one
 * hand's (held twice: two codes, one a copy) or one copy each of two hands',
 * found from the masks alone.  Returns the code (in the low bits), *np the
 * number of codes. */
static inline u128 suit_code2(const Ctx *c, int s, uint8_t *sr, int *np)
{
    uint32_t all = c->pres[0][s] | c->pres[1][s] | c->pres[2][s] | c->pres[3][s];
    uint32_t two = c->dup[0][s] | c->dup[1][s] | c->dup[2][s] | c->dup[3][s];
    /* rcode's index for each rank, a nibble a rank: the holders (hand h:
     * bit h), complemented where one hand holds both copies */
    uint64_t hx = (nib8[two & 0xff] | (uint64_t)nib8[two >> 8 & 0xff] << 32) * 15;
    for (int h = 0; h < 4; h++) {
        uint32_t m = c->pres[h][s];
        hx ^= (nib8[m & 0xff] | (uint64_t)nib8[m >> 8 & 0xff] << 32) << h;
    }
    uint8_t *p = sr;
    /* a code a rank, two for a rank held twice (by one hand, with two
     * copies): in a 64-bit word when they fit (nearly always) */
#define SUIT_CODE2_LOOP(code)                                               \
    while (all) {                                                           \
        int r = hb(all);                                                    \
        all ^= 1u << r;                                                     \
        unsigned x = c->rcode[hx >> 4 * r & 15], k = x >> 8;                \
        /* shifted by a multiply, cheaper than a shift by a variable */     \
        code = code * k | (x & 0xff);                                       \
        /* the rank in both slots; the second is the next rank's unless     \
         * the rank is held twice */                                        \
        uint16_t rr = (uint16_t)(r * 0x101);                                \
        memcpy(p, &rr, 2);                                                  \
        p += 1 + (k >> 8);                                                  \
    }
#if GEO_R && GEO_R <= 10
    int nc = popcnt10[all] + popcnt10[two];
#else
    int nc = popc(all) + popc(two);
#endif
    if (nc * c->codebits <= 64) {
        uint64_t code = 0;
        SUIT_CODE2_LOOP(code)
        *np = (int)(p - sr);
        return code;
    }
    u128 code = 0;
    SUIT_CODE2_LOOP(code)
#undef SUIT_CODE2_LOOP
    *np = (int)(p - sr);
    return code;
}

/* The holdings of suit s as two words: the hands' rank masks and their
 * masks of ranks held twice, 16 bits a hand (with at most two copies, the
 * whole holdings). */
static inline void suit_held(const Ctx *c, int s, uint64_t *q0, uint64_t *q1)
{
    _Static_assert(MAXR <= 16, "four rank masks in a 64-bit word");
    *q0 = c->pres[0][s] | (uint64_t)c->pres[1][s] << 16 | (uint64_t)c->pres[2][s] << 32
          | (uint64_t)c->pres[3][s] << 48;
    /* with one copy a card no rank is held twice */
    *q1 = GC(c) == 1 ? 0 : c->dup[0][s] | (uint64_t)c->dup[1][s] << 16 | (uint64_t)c->dup[2][s] << 32
          | (uint64_t)c->dup[3][s] << 48;
}

/* the cache slot of those holdings: one of suit s's scap slots, the
 * hash's top 32 bits scaled to scap (no power of two needed: Flower
 * Bridge's three suits get 2730 slots each, Bridge's four 2048, where 1024
 * a suit measured 0.5 % / 0.25 % more instructions) */
static inline SuitCode *suit_cache_slot(Ctx *c, int s, uint64_t q0, uint64_t q1)
{
    uint64_t hv = (q0 ^ q1 * 0x9E3779B97F4A7C15ULL) * 0xff51afd7ed558ccdULL;
    uint32_t cap = GEO_S ? SCACHE / GEO_S : c->scap;
    return &c->cache[(uint32_t)s * cap + (uint32_t)((hv >> 32) * cap >> 32)].sc;
}

/* With at most two copies the code is a function of the holdings: when the
 * slot's code was made for the same holdings (a sibling's, reached by other
 * plays), only its version is stale; else the code may be in the cache.
 * Returns the code so found (the slot sc, or the cache's entry itself, not
 * copied), with its version renewed, or NULL.  The cache's entry may later
 * be overwritten for other holdings: those are another version's (a
 * version is one suit's holdings: every play makes a new one, and an undo
 * restores the one before), so a key that finds it through Ctx.cur sees
 * its version differ and makes the code again; while a key is used (its
 * look-up) no code is made.  Most codes are found so: in the Bridge and
 * Flower builds this is done in make_key_codes, before the call to
 * make_suit_code, and make_key_codes is kept out of search instead (fewer
 * instructions); the generic build does it in make_suit_code. */
#define SC_EARLY (GEO_C == 1 || GEO_C == 2)
static inline const SuitCode *suit_code_known(Ctx *c, int s, SuitCode *sc)
{
    uint64_t q0, q1;
    suit_held(c, s, &q0, &q1);
    if (sc->ver && sc->held[0] == q0 && sc->held[1] == q1) {
        sc->ver = c->sver[s];
        return sc;
    }
    SuitCode *e = suit_cache_slot(c, s, q0, q1);
    if (e->ver && e->held[0] == q0 && e->held[1] == q1) {
        e->ver = c->sver[s];
        return e;
    }
    return NULL;
}

/* Not inlined: in search, its registers cost more than the call.  The code
 * made is also put in the cache.  Returns the code (see suit_code_known). */
static __attribute__((noinline)) const SuitCode *make_suit_code(Ctx *c, int s, SuitCode *sc)
{
    if (GC(c) <= 2 && !SC_EARLY) {
        const SuitCode *k = suit_code_known(c, s, sc);
        if (k) return k;
    }
    int B = GC(c) + 1, cb = c->codebits;
    u128 code = 0;
    int n = 0;
    uint32_t p0 = c->pres[0][s], p1 = c->pres[1][s], p2 = c->pres[2][s], p3 = c->pres[3][s];
    uint32_t all = p0 | p1 | p2 | p3;
    uint64_t q0, q1;
    suit_held(c, s, &q0, &q1);
    SuitCode *e = GC(c) <= 2 ? suit_cache_slot(c, s, q0, q1) : NULL;
    sc->held[0] = q0;
    sc->held[1] = q1;
    if (GC(c) == 1) {
        /* one copy a card: each rank is one hand's, found from two masks;
         * at most MAXR codes of 2 bits, built in a 64-bit word */
        uint32_t odd = p1 | p3, high = p2 | p3;
        uint64_t acc = 0;
        while (all) {
            int r = hb(all);
            all &= ~(1u << r);
            acc = acc << cb | (uint64_t)c->single[(odd >> r & 1) | (high >> r & 1) << 1];
            sc->rk[1 + n++] = (uint8_t)r;
        }
        code = acc;
    } else if (GC(c) == 2) {
        code = suit_code2(c, s, sc->rk + 1, &n);
    } else while (all) {
        int r = hb(all);
        all &= ~(1u << r);
        unsigned hp = (p0 >> r & 1) | (p1 >> r & 1) << 1 | (p2 >> r & 1) << 2 | (p3 >> r & 1) << 3;
        if (!(hp & (hp - 1))) {
            int hh = __builtin_ctz(hp);
            for (int j = 0; j < c->cnt[hh][s][r]; j++) {
                code = code << cb | (u128)c->single[hh];
                sc->rk[1 + n++] = (uint8_t)r;
            }
        } else {
            int x = c->code[((c->cnt[0][s][r] * B + c->cnt[1][s][r]) * B + c->cnt[2][s][r]) * B + c->cnt[3][s][r]];
            code = code << cb | (u128)x;
            sc->rk[1 + n++] = (uint8_t)r;
        }
    }
    sc->ver = c->sver[s];
    sc->rk[0] = (uint8_t)GR(c);
    /* top-aligned: in 64-bit words where it fits in one (always with one
     * copy a card), as 128-bit shifts by a variable cost more */
    u128 top;
    if (cb * n <= 64) top = n ? (u128)((uint64_t)code << (64 - cb * n)) << 64 : 0;
    else top = code << (128 - cb * n);
    uint64_t hw = (uint64_t)(top >> 64);
    sc->n = (uint8_t)n;
    int topc = n ? (int)(hw >> (64 - cb)) : -1;
    sc->lpart = (uint64_t)(topc + 1) << (6 * s) | (uint64_t)(n == 0) << (PART_NONE + s);
    /* where the code goes in a position key, made once here rather than at
     * every key built from it */
    int at = s * c->sb, o = at & 127, fb = c->fc * cb;
    sc->pw = (uint8_t)(at >> 7);
    sc->field[0] = top >> o;
    sc->field[1] = o ? top << (128 - o) : 0;
    sc->fpart = hw >> (64 - fb) << (64 - (s + 1) * fb);
    if (e) memcpy(e, sc, SC_USED);
    return sc;
}

/* The trump suit (-1: No Trump), and tmask for it. */
static void set_trump(Ctx *c, int trump)
{
    c->trump = trump;
    c->tmask = 0;
    if (trump >= 0)
        for (int h = 0; h < 4; h++) c->tmask |= c->lenunit[h][trump] * (((u128)1 << c->lenbits) - 1);
}

/* No hand holds a trump (or No Trump). */
static inline int trumps_out(const Ctx *c)
{
    return LK64 ? !(c->lenkey64[0] & c->tmask64[0]) : !(c->lenkey & c->tmask);
}

/* The parts of the key that locate its distribution in the table: suit
 * lengths, leader and trump, and their hash. */
static inline void make_key_dist(const Ctx *c, int h, PosKey *pk)
{
    pk->d[0] = LK64 ? c->lenkey64[0] : (uint64_t)c->lenkey;
    pk->d[1] = LK64 ? 0 : (uint64_t)(c->lenkey >> 64);
    /* once no hand holds a trump the position is a No Trump one: keyed as
     * such, so that the denominations of a table share those entries */
    int T = c->trump;
    if (trumps_out(c)) T = -1;
    pk->meta = (unsigned)h | (unsigned)(T + 1) << 2;
    uint64_t hv = (pk->meta + 1) * 0x9E3779B97F4A7C15ULL;
    hv ^= pk->d[0]; hv *= 0xff51afd7ed558ccdULL; hv ^= hv >> 32;
    hv ^= pk->d[1]; hv *= 0xc4ceb9fe1a85ec53ULL; hv ^= hv >> 29;
    pk->hbase = hv;
}

/* The rest of the key: the suits' codes (see SC_EARLY). */
#define KEY_V2 (GEO_C != 1)
#if SC_EARLY
static __attribute__((noinline)) void make_key_codes(Ctx *c, PosKey *pk)
#else
static void make_key_codes(Ctx *c, PosKey *pk)
#endif
{
    int S = GS(c);
    /* the packed words are made in registers: word w and the next one,
     * stored when a suit's field starts in the next word (a field spans
     * at most 128 bits, so w grows one at a time) */
    int w = 0;
#if KEY_V2
    /* outside the Bridge build, as pairs of 64-bit words (GCC's vector
     * extension: one operation a pair where the target has vector
     * registers), part and fp as one (measured: Flower Bridge -9 M
     * instructions, Bridge +5 M; part and fp alone, Bridge +10 M) */
    typedef uint64_t v2u __attribute__((vector_size(16)));
    _Static_assert(offsetof(PosKey, fp) == offsetof(PosKey, part) + 8
                   && offsetof(SuitCode, fpart) == offsetof(SuitCode, lpart) + 8, "part and fp a pair");
    v2u cw = {0, 0}, nw = {0, 0}, pf = {0, 0}, x;
#else
    u128 cw = 0, nw = 0;
    uint64_t fp = 0, part = 0;
#endif
    /* this trick start's codes, and the previous one's (ti 0: none) */
    int ti = c->ti;
    const SuitCode **cur = c->cur[ti], *const *prev = ti ? c->cur[ti - 1] : NULL;
    SuitCode *slots = c->sc[ti];
    for (int s = 0; s < S; s++) {
        const SuitCode *sc = prev ? prev[s] : NULL;
        uint64_t ver = c->sver[s];
        if (!sc || sc->ver != ver) {
            SuitCode *slot = &slots[s];
            sc = slot;
            if (slot->ver != ver) {
                const SuitCode *k = SC_EARLY ? suit_code_known(c, s, slot) : NULL;
                sc = k ? k : make_suit_code(c, s, slot);
            }
        }
        cur[s] = sc;
        /* in the Flower build only the fields that reach into the next
         * word are ORed into it (measured: more instructions in the
         * Bridge one) */
#if KEY_V2
        if (GEO_SB ? (s * GEO_SB) >> 7 != w : sc->pw != w) {
            memcpy(&pk->pcode[w++], &cw, sizeof cw);
            cw = nw;
            nw = (v2u){0, 0};
        }
        memcpy(&x, &sc->field[0], sizeof x);
        cw |= x;
        if (GEO_C != 2 || ((s * GEO_SB) & 127) + GEO_SB > 128) { memcpy(&x, &sc->field[1], sizeof x); nw |= x; }
        memcpy(&x, &sc->lpart, sizeof x);
        pf |= x;
#else
        if (GEO_SB ? (s * GEO_SB) >> 7 != w : sc->pw != w) {
            pk->pcode[w++] = cw;
            cw = nw;
            nw = 0;
        }
        cw |= sc->field[0];
        if (GEO_C != 2 || ((s * GEO_SB) & 127) + GEO_SB > 128) nw |= sc->field[1];
        fp |= sc->fpart;
        part |= sc->lpart;
#endif
        if (GC(c) > 2) pk->nslots[s] = sc->n;   /* read by tt_store only then */
        pk->slotrank[s] = sc->rk;
    }
#if KEY_V2
    memcpy(&pk->pcode[w], &cw, sizeof cw);
    memcpy(&pk->pcode[w + 1], &nw, sizeof nw);
    memcpy(&pk->part, &pf, sizeof pf);
#else
    pk->pcode[w] = cw;
    pk->pcode[w + 1] = nw;
    pk->fp = fp;
    pk->part = part;
#endif
}

static inline size_t dist_bucket(const TT *t, const PosKey *pk, uint64_t sig)
{
    /* hbase is mixed already: a multiply carries sig's bits up into the
     * top bits, which index the buckets (fewer operations than mixing
     * again; a bucket only heads a chain searched for the exact list) */
    return (size_t)(((pk->hbase ^ sig) * 0xbf58476d1ce4e5b9ULL) >> t->hshift);
}

static inline Dist *find_dist(const TT *t, const PosKey *pk, uint64_t sig, size_t bucket)
{
    /* acquire: pairs with the release store that links a list (tt_store),
     * after which its fields are read; the lists further down its chain
     * were linked before it */
    uint32_t idx = __atomic_load_n(&t->head[bucket], __ATOMIC_ACQUIRE);
    while (idx) {
        Dist *d = &t->dists[idx - 1];
#if LK64 && GEO_C != 1
        /* with the lengths in one word the second is always zero (the
         * Bridge build compares it still: measured, fewer instructions) */
        if (d->d[0] == pk->d[0] && d->meta == pk->meta && d->sig == sig) return d;
#else
        if (d->d[0] == pk->d[0] && d->d[1] == pk->d[1] && d->meta == pk->meta && d->sig == sig) return d;
#endif
        idx = __atomic_load_n(&d->next, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* spread4[m]: a field of 6 one bits at each suit of the 4-suit mask m, the
 * suits' fields of a list's signature */
#define SP(m) ((m & 1 ? 0x3fULL : 0) | (m & 2 ? 0xfc0ULL : 0) | (m & 4 ? 0x3f000ULL : 0) | (m & 8 ? 0xfc0000ULL : 0))
static const uint64_t spread4[16] = {SP(0), SP(1), SP(2), SP(3), SP(4), SP(5), SP(6), SP(7),
                                     SP(8), SP(9), SP(10), SP(11), SP(12), SP(13), SP(14), SP(15)};
#undef SP
_Static_assert(MAXS <= 8, "a list's signature spreads two 4-suit masks");
/* meets4[x]: the subsets of four suits (a bit each, by their 4-bit mask)
 * that meet the set x */
static const uint16_t meets4[16] = {0x0000, 0xaaaa, 0xcccc, 0xeeee, 0xf0f0, 0xfafa, 0xfcfc, 0xfefe,
                                    0xff00, 0xffaa, 0xffcc, 0xffee, 0xfff0, 0xfffa, 0xfffc, 0xfffe};

/* The entries of block b whose fingerprints match the position's fp, a bit
 * each (all BLK slots, written or not). */
static inline unsigned block_cands(const Block *b, uint64_t fp)
{
#ifdef __SSE2__
    /* two entries a vector; packing the 32-bit halves to 16 bits keeps a
     * nonzero half nonzero (signed saturation), so an entry's packed 32-bit
     * lane is zero iff its 64 bits are */
    _Static_assert(BLK == 4, "a block's fingerprints are two vectors of two");
    const __m128i fpv = _mm_set1_epi64x((long long)fp);
    __m128i x0 = _mm_and_si128(_mm_xor_si128(_mm_loadu_si128((const __m128i *)b->fp), fpv),
                               _mm_loadu_si128((const __m128i *)b->fm));
    __m128i x1 = _mm_and_si128(_mm_xor_si128(_mm_loadu_si128((const __m128i *)b->fp + 1), fpv),
                               _mm_loadu_si128((const __m128i *)b->fm + 1));
    __m128i z = _mm_cmpeq_epi32(_mm_packs_epi32(x0, x1), _mm_setzero_si128());
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(z));
#else
    unsigned cand = 0;
    for (int j = 0; j < BLK; j++) cand |= (unsigned)(((fp ^ b->fp[j]) & b->fm[j]) == 0) << j;
    return cand;
#endif
}

/* A near entry's lead as the hint (see block_match): not with one copy a
 * card, where Bridge's trick nodes were unchanged (the Bridge build keeps
 * its look-up as it was) */
#define NEAR_HINT (GEO_C != 1)

/* A look-up's state, which block_match reads and updates: the position,
 * the tricks needed, the result (1 / 0; -1: none yet) with the widest
 * region so far (wide: the sum of its thresholds, best: its entry, whose
 * thresholds tt_lookup reads once at the end), and the first entry that
 * matches with a best lead (hint; hint2: the first near one).  One
 * pointer, so that the call passes its arguments in registers. */
/* REL_LATE (the Flower Bridge build): the widest entry's thresholds are
 * read once at the end of the look-up (q->best) rather than for every entry
 * that decides (measured: Flower Bridge -11 M instructions, where building
 * the copies' bytes cost more; Bridge +6 M, so not there: q->rel) */
#define REL_LATE RELH
typedef struct {
    const PosKey *pk;
#if REL_LATE
    const Entry *best;
#else
    uint8_t *rel;
#endif
    const Entry *hint;
    int need, res, wide;
#if NEAR_HINT
    const Entry *hint2;
#endif
} Scan;

/* Of the entries of block b whose fingerprints match the position's (cand):
 * those whose region matches and whose bound decides "NS take >= need more
 * tricks" (as tt_lookup) replace q->res and q->best (q->rel) when their region is
 * wider than the widest so far; q->hint gets the first that matches with a
 * best lead, if none yet, and q->hint2 the first with a best lead whose
 * region differs below the fingerprint's codes (a near position: its lead
 * is the hint when no matching entry has one; ordering only).  Kept out of
 * the scan of the blocks (most have no candidate), which then keeps its
 * values in registers. */
static __attribute__((noinline)) void block_match(Ctx *c, const Block *b, unsigned cand, Scan *q)
{
    const PosKey *pk = q->pk;
    while (cand) {
        int j = hb(cand);
        cand &= ~(1u << j);
        const Entry *e = blk_entry(c->tt, (Block *)b, j);
        /* else the fingerprint holds the whole region */
        if (e->deep && !region_match(c, e, pk)) {
#if NEAR_HINT
            /* a lead hint, failing any from a matching entry */
            if (GC(c) > 1 && e->bs != 0xff && !q->hint2) q->hint2 = e;
#endif
            continue;
        }
        int v = -1, ev = __atomic_load_n(&e->val, __ATOMIC_RELAXED);
        if (e->lower) { if (ev >= q->need) v = 1; }
        else if (ev < q->need) v = 0;
        if (v >= 0) {
#if REL_LATE
            int w = 0;
            for (int s = 0; s < GS(c); s++) w += pk->slotrank[s][e->n[s]];
            if (w > q->wide) { q->wide = w; q->res = v; q->best = e; }
#else
            uint8_t er[MAXS];
            int w = 0;
            for (int s = 0; s < GS(c); s++) {
                er[s] = pk->slotrank[s][e->n[s]];
                w += er[s];
            }
            if (w > q->wide) { q->wide = w; q->res = v; memcpy(q->rel, er, MAXS); }
#endif
        } else if (e->bs != 0xff && !q->hint) {
            q->hint = e;
        }
    }
}

/* Outside the Bridge build (where each costs instructions, its lists being
 * short): the scan steps from block to block by Block.noff (BLK_NOFF), and
 * counts a list's blocks down from d->nblocks, the length of its chain (see
 * tt_store), rather than count the entries a block, telling the entries
 * read from that count when it stops (SCAN_COUNTDOWN). */
#define BLK_NOFF (GEO_C != 1)
#define SCAN_COUNTDOWN (GEO_C != 1)
#if BLK_NOFF
#define BLK_NEXT(b) ((b)->noff)
#define BLK_AT(x) ((const Block *)(blocks + (x)))
#else
#define BLK_NEXT(b) ((b)->next)
#define BLK_AT(x) ((const Block *)(blocks + (size_t)(x) * bstride))
#endif

/* Look for a stored bound deciding "NS take >= need more tricks".  Returns
 * 1 / 0 when decided (rel set to the thresholds of the entry's region),
 * -1 when not; *hint gets an entry with a best lead if any.  Once an entry
 * decides, the next `wider` entries (TT_WIDER) are read too, for one that decides
 * with a wider region: the region returned bounds the regions every
 * ancestor stores (a first hit that looks deeper into a suit than another
 * matching entry cost 1-5 % more trick nodes; reading every matching list
 * to its end saves a little more but costs more time than it saves). */
static int tt_lookup(Ctx *c, const PosKey *pk, int need, int wider, uint8_t *rel, const Entry **hint)
{
    const TT *t = c->tt;
    int S = GS(c);
    *hint = NULL;
    c->st_lookups++;
    /* A shared table may be cleared by another thread's store while this
     * look-up reads it: what it reads then may be reused memory (lists and
     * blocks of the table's arrays, a walk bounded by a count of blocks or
     * ending at block 0), so a result found is kept only if the generation
     * is unchanged at the end (a sequence lock's reader) */
    uint32_t gen = t->shared ? __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE) : 0;
    if (gen & 1) return -1;             /* being cleared (see tt_full) */
#if !REL_LATE
    uint64_t rel0;
    memcpy(&rel0, rel, sizeof rel0);
#endif
    uint32_t masks = 0xffffffffu;
    if (S <= 4) {
        uint32_t sm = __atomic_load_n(&t->summary[pk->hbase & (t->nh - 1)], __ATOMIC_RELAXED);
        uint32_t tag = (uint32_t)(pk->hbase >> 49) + 1;
        if (sm == 0) return -1;                     /* nothing stored for this distribution */
        if ((sm >> 16) == tag) masks = sm & 0xffff;
        else if ((sm >> 16) != 0xffff) return -1;   /* another distribution's slot */
    }
    /* The lists to probe are found in three rounds (bucket heads, list
     * headers, first blocks), each prefetching what the next reads, so
     * that their cache misses overlap instead of adding up. */
    uint64_t sigs[1u << MAXS];
    size_t bks[1u << MAXS];
    Dist *ds[1u << MAXS];
    int np = 0;
    /* the subsets of suits with lists, in increasing order; those with a
     * suit void of cards have none */
    uint64_t part = pk->part;
    unsigned none = (unsigned)(part >> PART_NONE), nm = 1u << S;
    for (unsigned base = 0; base < nm; base += 32) {
        uint32_t mm = nm - base >= 32 ? 0xffffffffu : (1u << (nm - base)) - 1;
        if (S <= 4) mm &= masks & ~meets4[none];
        while (mm) {
            unsigned mask = base + (unsigned)__builtin_ctz(mm);
            mm &= mm - 1;
            if (S > 4 && (mask & none)) continue;
            uint64_t sig = part & (spread4[mask & 15] | spread4[mask >> 4] << 24);
            sigs[np] = sig;
            bks[np] = dist_bucket(t, pk, sig);
            __builtin_prefetch(&t->head[bks[np]]);
            np++;
        }
    }
    for (int i = 0; i < np; i++) {
        /* (a hint only: the list is read again, with acquire, below) */
        uint32_t idx = __atomic_load_n(&t->head[bks[i]], __ATOMIC_RELAXED);
        if (idx) __builtin_prefetch(&t->dists[idx - 1]);
    }
    for (int i = 0; i < np; i++) {
        ds[i] = find_dist(t, pk, sigs[i], bks[i]);
        if (ds[i]) {
            /* the whole block: a candidate's entry is read at once */
            const char *b = (const char *)tt_block(t, ds[i]->block);
            for (size_t o = 0; o < t->bstride; o += 64) __builtin_prefetch(b + o);
        }
    }
    long long scanned = 0;
    uint64_t fp = pk->fp;
    /* block i (from 1) at blocks + i bstride, an address (as an integer: it
     * lies before the array): one operation fewer a block */
    const uintptr_t blocks = (uintptr_t)t->blocks - t->bstride;
    const size_t bstride = t->bstride;
#if REL_LATE
    Scan q = {pk, NULL, NULL, need, -1, -1, NULL};
#elif NEAR_HINT
    Scan q = {pk, rel, NULL, need, -1, -1, NULL};
#else
    Scan q = {pk, rel, NULL, need, -1, -1};
#endif
    /* Until an entry decides, every block of every list; the loop then
     * stops where it is (the block after it: next), and the scan goes on
     * from there up to `wider` more entries.  Two loops, so that the
     * first (nearly all blocks read) needs no test of a limit; a block's
     * successor is fetched ahead while it is read. */
    int i = 0;
#if BLK_NOFF
    uint64_t next = 0;
#else
    uint32_t next = 0;
#endif
    for (; i < np; i++) {
        Dist *d = ds[i];
        if (!d) continue;
        /* only a list's newest block is ever partly filled (see tt_store):
         * the slots past its count, stale or never written, are masked off */
        /* read in this order, by acquire loads, beside a store to a shared
         * table (see tt_store): the count of blocks, the newest block, its
         * count, then its entries */
#if SCAN_COUNTDOWN
        uint32_t left = __atomic_load_n(&d->nblocks, __ATOMIC_ACQUIRE);
#endif
        const Block *b = (const Block *)(blocks + (size_t)__atomic_load_n(&d->block, __ATOMIC_ACQUIRE) * bstride);
        uint32_t bc = __atomic_load_n(&b->count, __ATOMIC_ACQUIRE);
        unsigned cand = block_cands(b, fp) & ((1u << bc) - 1);
        scanned += bc;
        for (;;) {
            /* the next block on its way, its fingerprints and its entries
             * (a candidate's is read at once), while this one's entries
             * are looked at (a prefetch of no block, at next == 0,
             * is harmless) */
            next = BLK_NEXT(b);
            const Block *nb = BLK_AT(next);
            for (size_t o = 0; o < bstride; o += 64) __builtin_prefetch((const char *)nb + o);
            if (cand) {
                block_match(c, b, cand, &q);
                if (q.res >= 0) {
#if SCAN_COUNTDOWN
                    scanned += (long long)(d->nblocks - left) * BLK;
#endif
                    goto wider;
                }
            }
#if SCAN_COUNTDOWN
            if (--left == 0) break;
#else
            if (!next) break;
            scanned += BLK;
#endif
            b = nb;
            cand = block_cands(b, fp);
        }
#if SCAN_COUNTDOWN
        scanned += (long long)(d->nblocks - 1) * BLK;
#endif
    }
    c->st_scan += scanned;
#if NEAR_HINT
    *hint = GC(c) > 1 && !q.hint ? q.hint2 : q.hint;
#else
    *hint = q.hint;
#endif
    return -1;
wider:;
    long long lim = scanned + wider;
    for (;;) {
        while (next && scanned < lim) {
            const Block *b = BLK_AT(next);
            scanned += BLK;
            next = BLK_NEXT(b);
            const Block *nb = BLK_AT(next);
            for (size_t o = 0; o < bstride; o += 64) __builtin_prefetch((const char *)nb + o);
            unsigned cand = block_cands(b, fp);
            if (cand) block_match(c, b, cand, &q);
        }
        if (scanned >= lim) break;
        while (++i < np && !ds[i]) ;
        if (i >= np) break;
        const Block *b = (const Block *)(blocks + (size_t)__atomic_load_n(&ds[i]->block, __ATOMIC_ACQUIRE) * bstride);
        uint32_t bc = __atomic_load_n(&b->count, __ATOMIC_ACQUIRE);
        unsigned cand = block_cands(b, fp) & ((1u << bc) - 1);
        scanned += bc;
        next = BLK_NEXT(b);
        if (cand) block_match(c, b, cand, &q);
    }
    c->st_scan += scanned;
#if REL_LATE
    /* the thresholds of the widest entry's region: the rank of its lowest
     * kept slot a suit; the copies of the threshold rank it relies on:
     * where dem[s], those of the hands not in its A, else every copy */
    uint8_t er[2 * MAXS];
    for (int s = 0; s < GS(c); s++) {
        er[s] = pk->slotrank[s][q.best->n[s]];
        er[4 + s] = (uint8_t)(~q.best->dem[s] & 15);    /* 15 where none */
    }
#endif
    if (t->shared) {
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&t->gen, __ATOMIC_RELAXED) != gen) {
#if !REL_LATE
            memcpy(rel, &rel0, sizeof rel0);
#endif
            *hint = NULL;
            return -1;
        }
    }
    c->st_hits++;
#if REL_LATE
    for (int s = 0; s < GS(c); s++) {
        rel[s] = er[s];
        rel[4 + s] = er[4 + s];
    }
#endif
    return q.res;
}

/* Copies of the threshold rank (RELH, the Flower Bridge build).  A search's
 * region, rel[s] = t and rel[4 + s] = H (a set of hands), claims the same
 * answer for every position (hands, and the cards of the trick in progress)
 * that keeps each card of rank above t, and each copy of t held by a hand
 * of H, where it is, and gives each hand as many other cards of the suit
 * ("low cards") as here, all below t, except that a hand not in H may hold
 * a copy of t as a low card.  With H every hand this is the claim of old.
 * What makes it hold, beside what made the old one hold (low cards are
 * only ever taken as interchangeable with the same hand's low cards:
 * moves' groups, skipped siblings, the cut-off move below crel):
 * - Tricks.  The winner of a trick holding another card of its suit is
 *   relevant (rel_win: above t, or a copy of t of a hand put in H), and so
 *   is the copy of t of every hand that played its suit before it.  So the
 *   same hand wins the trick in a position of the region, its cards played
 *   as here (relevant ones the same, low ones low): a winner alone in its
 *   suit (or the only trump) is alone there too; else the other cards of
 *   its suit lost here, a relevant one is the same card, and a low one is
 *   below t, or a copy of t of a hand V not in H, which loses to a winner
 *   above t, and to the winner's copy of t (of a hand in H) because V
 *   played after it: had V played before it, V would be in H.  A low card
 *   never wins a trick holding another card of its suit (it would then be
 *   relevant), so it does not matter which low card it is.
 * - The last trick (last_trick_ns) is a trick as above.  Other bounds
 *   rely on every copy of their thresholds (H all), except two, which
 *   hold in every position of the region as their counts are no worse
 *   there: quick_tricks, on the cashing hand's copy (its cards at or
 *   above t are the same, the others hold nothing above t, so its count
 *   of cards at or above the others' top card is no smaller, and a card
 *   it leads wins against an equal copy played later; the rest is
 *   lengths); the trump count in search, on b's copy, and the opponents'
 *   unless one of them holds the other copy (b's count is the same, and
 *   the opponents' at or above t no larger).  In the middle of a trick,
 *   second_hand_tricks and third_hand_tricks: a card c of rank t that
 *   takes the trick relies on its holder's copy and those of the hands
 *   that played to the trick before it (so that no card on the table is
 *   an equal copy played first), and of the hand between it and the
 *   fourth hand where that one must outrank it; a later hand's equal copy
 *   loses.  At No Trump the fourth hand's card relies on every copy (the
 *   second hand's equal copy could take the trick himself, and then cash
 *   other cards).  The leader's card winning at the third hand: the
 *   leader's copy only (the others played or play after it).
 * - Played cards (rel_win's P, rel[4 + s] >> 4).  The hands that played
 *   the winner's suit before it (P) need not be in H: what the trick
 *   relies on is only that the card each of them played is not a copy of
 *   t.  So in the middle of a trick a region is (t, H, P): as above, but a
 *   hand of P not in H may hold a copy of t as a low card only in hand,
 *   not as the card it played to this trick.  At the fourth hand's node
 *   rel_win makes (t, H u {winner}, P) of the trick's (t, H) (the lower
 *   threshold wins as before; at equal ones both sets are unions): the
 *   same hand wins the trick as argued above, since a card on the table
 *   that could equal the winner's copy and was played before it is a
 *   hand's of P or H; and the next trick's position is in its region, as
 *   H holds that region's set.  Going up, the hand h of P leaves P at its
 *   own node, where it played m (of suit s, below t: the winner outranked
 *   it), by rel_played: into H, except where h holds a copy of t in hand
 *   and is not in H, when the move's region is (t, H, P - h).  That
 *   holds: take a position Q of it.  The other copy of t is the winner
 *   X's, in X's hand (X plays after h; X is in H), so h holds at most one
 *   copy.  If h's node is a cut-off, h holds as many low cards in Q as
 *   here, where its copy of t is one of them and m another: so in Q h
 *   holds a low card below t, and playing it (instead of m) reaches a
 *   position of the child's region: the card played is not t, and h may
 *   hold a copy of t in hand there (h not in H).  If every move of h
 *   fails, each move of Q is one of here: a low card below t as m (the
 *   child as just said); h's copy of t, if Q holds it there, as h's move
 *   of its copy of t here, which was searched (a group of its own: X
 *   holds the other copy, in Q too) or skipped by an earlier sibling
 *   whose region lies wholly above it, and the node's region is inside
 *   that move's region (merging), in which Q's move of t reaches its
 *   child's region as here: every card at or above t is as here.  Other
 *   hands of P keep their marks to their own nodes (their cards are on
 *   the table: a copy of t that Q gives one of them in hand is a low card
 *   only for the tricks after this one, where its H allows it); a hand
 *   that gets a copy of t in Q and plays to this trick after h but before
 *   the winner is in P, and so in H by its own node (it holds no copy
 *   here).  At the last trick (last_trick_ns) the cards played are the
 *   hands' only cards: those hands go into H.
 * - A hand's own copy where every move fails.  At a node where every move
 *   of h fails, the move of h's copy of t, where t is its region's
 *   threshold, h holds that one copy only, another hand X holds the other
 *   (in hand) and h holds a lower card of the suit, is merged without h in
 *   its H (R' = (t, H - h, P) of its region R = (t, H, P)), and if the
 *   node's merged region F ends at t with h not in its H, X is put in it.
 *   That holds: where h is in F's H, F lies inside R as before.  Else take
 *   a position Q of F: X holds the other copy there (X in H), so h holds at
 *   most one.  Each move of h in Q fails: a card above t, or of another
 *   suit, as before (F lies inside every other move's region); h's copy of
 *   t, if Q gives h one, as the move of it here: Q is in R (every hand of
 *   H but h is in F's; h holds exactly its copy of t in hand, and as many
 *   cards below t as here); a card below t, as the move of h's lower card
 *   here (or the sibling that skipped it): that move's region ends at or
 *   above t (F ends at t) and, by the group rule, above the move's group,
 *   so it takes any card of h below it, and h is not in its H (nor, after
 *   rel_played, in its P), so Q is in it.  (The lower card is needed: else
 *   a card below t that Q gives h in place of its copy would be covered by
 *   no move; a first version without it changed values.)  Two such moves
 *   of a suit: the lower threshold is the one that can end F.
 * - Merging: the lower threshold's H, at equal thresholds the union (a
 *   region inside both); a group of moves lowered to t or below: all
 *   copies (a group whose lowest card is h's copy of t and higher ones
 *   too: where another hand's copy of t is a low card, h's copy and the
 *   group's higher cards are not one group there, as that hand may play
 *   its copy first, which h's copy then does not beat).
 * An entry keeps that: where the suit's lowest kept code is the rank t
 * with exactly one holder X in H (X alone, or X and Y with Y not in H) and
 * some hand is not in H (A: those hands), its region takes there X alone
 * or X with one hand of A (dem[s]).  Every position so matched is in the
 * claim's region: the codes above are the same cards; X alone is X's copy
 * of t with the other gone or X's too, which is X's copy and an adjacent
 * low card of X (exclusive adjacent cards are interchangeable); X with V
 * puts the other copy with V in A, a low card; the lower codes are low
 * cards, hand for hand by the lengths.  A hit on it returns H = the hands
 * not in A, a region inside the entry's. */
static void tt_store(Ctx *c, const PosKey *pk, const uint8_t *rel, int lower, int val, int bs, int bg)
{
    TT *t = c->tt;
    int S = GS(c);
    uint8_t n[MAXS] = {0};
    u128 key[MAXW];
    for (int s = 0; s < S; s++) {
        int j = 0;
        if (GC(c) <= 2) {
            /* the codes of the ranks at or above rel[s] (the position is
             * the key's again): one a rank, two for a rank one hand holds
             * twice (see init_codes) */
            uint32_t all = (c->pres[0][s] | c->pres[1][s] | c->pres[2][s] | c->pres[3][s]) >> rel[s];
            uint32_t two = GC(c) == 1 ? 0 : (c->dup[0][s] | c->dup[1][s] | c->dup[2][s] | c->dup[3][s]) >> rel[s];
#if GEO_R && GEO_R <= 10
            j = popcnt10[all] + popcnt10[two];
#else
            j = popcnt8[all & 0xff] + popcnt8[all >> 8] + popcnt8[two & 0xff] + popcnt8[two >> 8];
#endif
        } else {
            while (j < pk->nslots[s] && pk->slotrank[s][j + 1] >= rel[s]) j++;
        }
        n[s] = (uint8_t)j;
    }
    for (int w = 0; w < GK(c); w++) {
        u128 m = 0;
        for (int s = 0; s < S; s++) if (IN_WORD(s, w)) m |= c->nmask[s][n[s]][w];
        key[w] = pk->pcode[w] & m;
    }
    uint8_t dem[MAXS] = {0};
    int anydem = 0;
#if RELH
    /* A split threshold rank whose copy of one holder only the proof relied
     * on (see the argument below) widens the region: the suit's lowest
     * kept code may then also be that holder's alone.  Where it is the
     * suit's top code, the lists are keyed by it: the entry is stored in
     * the list of each code it takes there (for one suit only). */
    int s1 = -1, nalt = 0, alt[4];
    for (int s = 0; s < S; s++) {
        int t = rel[s];
        if (n[s] < 1 || t >= GR(c) || (n[s] == 1 && s1 >= 0)) continue;
        unsigned hm = 0, two = 0;
        for (int h = 0; h < 4; h++) {
            hm |= (c->pres[h][s] >> t & 1) << h;
            two |= c->dup[h][s] >> t & 1;
        }
        unsigned keep = hm & rel[4 + s], a = ~rel[4 + s] & 15;
        if (!hm || two || popcnt8[keep] != 1 || !a) continue;
        int x = __builtin_ctz(keep);
        dem[s] = (uint8_t)(0x80 | x << 4 | a);
        anydem = 1;
        if (n[s] == 1) {
            /* the other codes the region takes at the top: X alone, X and
             * a hand of A */
            s1 = s;
            for (int v = 0; v < 4; v++) {
                if (v != x && !(a >> v & 1)) continue;
                int cv = v == x ? c->single[x] : c->code[((((v == 0 || x == 0) * 3 + (v == 1 || x == 1)) * 3 + (v == 2 || x == 2)) * 3) + (v == 3 || x == 3)];
                if ((uint64_t)(cv + 1) != (pk->part >> (6 * s) & 63)) alt[nalt++] = cv;
            }
        }
    }
#endif
    uint64_t fm = 0;
    for (int s = 0; s < S; s++) fm |= c->fmask[s][RELH ? n[s] - (dem[s] != 0) : n[s]];
    uint64_t fp = pk->fp & fm;
    unsigned mask = 0;
    for (int s = 0; s < S; s++)
        if (n[s]) mask |= 1u << s;
    uint64_t sig0 = pk->part & (spread4[mask & 15] | spread4[mask >> 4] << 24);
    if (t->shared) tt_lock(t);
#if RELH
    for (int vi = 0; vi <= nalt; vi++) {
    uint64_t sig = vi ? (sig0 & ~(63ULL << (6 * s1))) | (uint64_t)(alt[vi - 1] + 1) << (6 * s1) : sig0;
#else
    {
    uint64_t sig = sig0;
#endif
    size_t bucket = dist_bucket(t, pk, sig);
    Dist *d = find_dist(t, pk, sig, bucket);
    if (d) {
        /* same region and kind stored lately: tighten it (older copies
         * are not looked for, as walking a long list costs more than a
         * duplicate; the newer entry is the one a look-up meets first) */
        int nb = 0;
        for (uint32_t bi = d->block; bi && nb < 2; nb++) {
            Block *b = tt_block(t, bi);
            for (int i = 0; i < (int)b->count; i++) {
                if (b->fp[i] != fp || b->fm[i] != fm) continue;
                Entry *e = blk_entry(t, b, i);
                if (e->lower != lower) continue;
                int same = 1;
                for (int s = 0; s < S && same; s++) same = e->n[s] == n[s] && (!RELH || e->dem[s] == dem[s]);
                for (int w = 0; w < GK(c) && same; w++) same = e->key[w] == key[w];
                if (!same) continue;
                /* a tighter bound in place: a look-up beside it (a shared
                 * table) reads the old bound or the new, both true */
                if (lower ? val > e->val : val < e->val) __atomic_store_n(&e->val, (uint8_t)val, __ATOMIC_RELAXED);
                if (bs != 0xff) {
                    __atomic_store_n(&e->bs, (uint8_t)bs, __ATOMIC_RELAXED);
                    __atomic_store_n(&e->bg, (uint8_t)bg, __ATOMIC_RELAXED);
                }
                goto next;
            }
            bi = b->next;
        }
    }
    /* a full table is cleared (tt_full) */
    if (!d && t->dused == t->dcap) tt_full(t);
    if (d) {
        Block *b = tt_block(t, d->block);
        if (b->count == BLK && (d->nblocks < MAXBLK || t->shared) && d->rhi == d->rlo && t->bused == t->bcap) { tt_full(t); d = NULL; }
    } else if (t->bused == t->bcap) {
        tt_full(t);
    }
    /* A new list is linked into its bucket's chain only once it has its
     * first block, an empty one; a new block is linked before the list's
     * count of blocks grows, and an entry is written before its block's
     * count takes it in, each by a release store: a look-up running beside
     * this store (a shared table) reads the count of blocks first, then
     * the newest block, then its count (acquire loads), so it sees only
     * blocks that are linked and entries that are whole.  A shared table
     * never reuses a dropped block (a look-up may be reading it): a list
     * past MAXBLK blocks takes a fresh one and leaves its oldest ones
     * linked, unread by look-ups that count the blocks down. */
    Dist *nd = NULL;
    if (!d) {
        /* with its first block at once: a look-up that read this list
         * before a clear may read it (its count of blocks never 0) */
        size_t nused = t->bused + 1;    /* (stores take turns: only Solver.fill reads meanwhile) */
        __atomic_store_n(&t->bused, nused, __ATOMIC_RELAXED);
        uint32_t ni = (uint32_t)nused;
        Block *nb = tt_block(t, ni);
        nb->next = 0;
#if BLK_NOFF
        nb->noff = 0;
#endif
        nb->count = 0;
        nd = d = &t->dists[t->dused++];
        d->d[0] = pk->d[0];
        d->d[1] = pk->d[1];
        d->sig = sig;
        d->meta = pk->meta;
        d->block = ni;
        d->nblocks = 1;
        d->rlo = d->rhi = 0;
        d->next = t->head[bucket];
    }
    Block *b = tt_block(t, d->block);
    if (b->count == BLK) {
        uint32_t ni;
        int grow = d->nblocks < MAXBLK;
        if (grow || t->shared) {
            if (d->rhi == d->rlo) {
                /* a new run, as many blocks as the list has, within
                 * MAXBLK where it would drop older ones beyond */
                size_t k = d->nblocks < RUN ? d->nblocks : RUN;
                if (grow && k > MAXBLK - d->nblocks) k = MAXBLK - d->nblocks;
                if (k > t->bcap - t->bused) k = t->bcap - t->bused;
                d->rlo = (uint32_t)t->bused + 1;
                __atomic_store_n(&t->bused, t->bused + k, __ATOMIC_RELAXED);
                d->rhi = (uint32_t)t->bused + 1;
            }
            ni = --d->rhi;
        } else {
            uint32_t prev = d->block;
            Block *pb = tt_block(t, prev);
            while (tt_block(t, pb->next)->next) { prev = pb->next; pb = tt_block(t, prev); }
            ni = pb->next;
            pb->next = 0;
#if BLK_NOFF
            pb->noff = 0;
#endif
        }
        Block *nb = tt_block(t, ni);
        nb->next = d->block;
#if BLK_NOFF
        nb->noff = (uint64_t)d->block * t->bstride;
#endif
        nb->count = 0;
        __atomic_store_n(&d->block, ni, __ATOMIC_RELEASE);
        if (grow) __atomic_store_n(&d->nblocks, d->nblocks + 1, __ATOMIC_RELEASE);
        b = nb;
    }
    if (nd) __atomic_store_n(&t->head[bucket], (uint32_t)(nd - t->dists) + 1, __ATOMIC_RELEASE);
    if (S <= 4) {
        uint32_t *sm = &t->summary[pk->hbase & (t->nh - 1)];
        uint32_t tag = (uint32_t)(pk->hbase >> 49) + 1;
        uint32_t old = *sm, nw;
        if (old == 0) nw = tag << 16 | 1u << mask;
        else if ((old >> 16) == tag) nw = old | 1u << mask;
        else nw = 0xffffu << 16 | 0xffffu;          /* shared by two distributions */
        /* one store (read beside it by the look-ups of a shared table) */
        if (nw != old) __atomic_store_n(sm, nw, __ATOMIC_RELAXED);
    }
    {
        uint32_t i = b->count;
        b->fp[i] = fp;
        b->fm[i] = fm;
        Entry *e = blk_entry(t, b, (int)i);
        e->lower = (uint8_t)lower;
        e->val = (uint8_t)val;
        e->bs = (uint8_t)bs;
        e->bg = (uint8_t)bg;
        memcpy(e->n, n, sizeof(e->n));
        e->deep = 0;
        for (int s = 0; s < S; s++) if (n[s] - (RELH && dem[s]) > c->fc) e->deep = 1;
        if (RELH) {
            memcpy(e->dem, dem, sizeof(e->dem));     /* S <= 3 */
            if (anydem) e->deep |= 2;
        }
        for (int w = 0; w < GK(c); w++) e->key[w] = key[w];
        __atomic_store_n(&b->count, i + 1, __ATOMIC_RELEASE);
    }
    next:;
    }
    if (t->shared) tt_unlock(t);
}

/* ------------------------------------------------------------------ */
/* Playing cards                                                        */

static inline int beats(const Ctx *c, Move a, Move w)
{
    if (a.s == w.s) return a.r > w.r;     /* equal rank never takes over */
    return a.s == c->trump;
}

/* k: c->k, as the caller knows it (one load fewer) */
static inline void play(Ctx *c, int h, int k, Move m, Undo *u)
{
    if (GC(c) == 1) c->pres[h][m.s] &= ~(1u << m.r);       /* cnt unused (see CNT) */
    else if (GC(c) == 2) {
        /* the copy leaves dup if the rank was held twice, else pres */
        uint32_t b = 1u << m.r, d = c->dup[h][m.s] & b;
        c->dup[h][m.s] ^= d;
        c->pres[h][m.s] ^= b ^ d;
    }
    else if (--c->cnt[h][m.s][m.r] == 0) c->pres[h][m.s] &= ~(1u << m.r);
    else if (c->cnt[h][m.s][m.r] == 1) c->dup[h][m.s] &= ~(1u << m.r);
    u->sver = c->sver[m.s];
    c->sver[m.s] = ++c->vclock;
    c->len[h][m.s]--;
    if (LK64) c->lenkey64[0] -= c->lenunit64[h][m.s][0];
    else c->lenkey -= c->lenunit[h][m.s];
    c->hlen[h]--;
    Move *tr = c->tc[c->ti];
    tr[k] = m;
    u->wpos = c->wpos;
    if (k == 0) c->wpos = 0;
    else if (beats(c, m, tr[c->wpos])) c->wpos = k;
    c->k = k + 1;
    if (k == 3) {
        u->done = 1;
        u->leader = c->leader;
        u->ns = c->ns;
        Move w = tr[c->wpos];
        u->wrs = u->wrr = 0xff;
        for (int j = 0; j < 4; j++)
            if (j != c->wpos && tr[j].s == w.s) { u->wrs = w.s; u->wrr = w.r; break; }
        int wh = (c->leader + c->wpos) & 3;
#if RELH
        if (u->wrs != 0xff) {
            /* the winner's copy, and the copies of t of the hands that
             * played its suit before it (see tt_store) */
            unsigned wp = 0;
            for (int j = 0; j < c->wpos; j++)
                if (tr[j].s == w.s) wp |= 1u << ((c->leader + j) & 3);
            u->wrm = (uint8_t)(1u << wh);
            u->wrp = (uint8_t)wp;
        }
#endif
        if (!(wh & 1)) c->ns++;
        c->leader = wh;
        c->k = 0;
        c->ti++;
    } else {
        u->done = 0;
    }
}

/* Whether the card winning the trick in progress is of suit s and rank r. */
static inline int wtop_is(const Ctx *c, int s, int r)
{
    if (c->k == 0) return 0;
    Move w = c->tc[c->ti][c->wpos];
    return w.s == s && w.r == r;
}

static inline void unplay(Ctx *c, int h, Move m, const Undo *u)
{
    if (u->done) {
        c->ti--;
        c->k = 4;
        c->leader = u->leader;
        c->ns = u->ns;
    }
    c->k--;
    c->wpos = u->wpos;
    if (GC(c) == 1) c->pres[h][m.s] |= 1u << m.r;
    else if (GC(c) == 2) {
        uint32_t b = 1u << m.r;
        c->dup[h][m.s] |= c->pres[h][m.s] & b;
        c->pres[h][m.s] |= b;
    }
    else if (c->cnt[h][m.s][m.r]++ == 0) c->pres[h][m.s] |= 1u << m.r;
    else c->dup[h][m.s] |= 1u << m.r;
    c->sver[m.s] = u->sver;
    c->len[h][m.s]++;
    if (LK64) c->lenkey64[0] += c->lenunit64[h][m.s][0];
    else c->lenkey += c->lenunit[h][m.s];
    c->hlen[h]++;
}

/* gen_moves's groups of suit s, put at mv[n], top[n] onward; onb: the card
 * winning the trick if of suit s, as a rank mask.  Returns the new n. */
static inline int gen_suit(const Ctx *c, int h, int s, uint32_t onb, Move *mv, uint8_t *top, int n)
{
    uint32_t mine = c->pres[h][s];
    if (!mine) return n;
    uint32_t others = c->pres[(h + 1) & 3][s] | c->pres[(h + 2) & 3][s] | c->pres[(h + 3) & 3][s];
    uint32_t block = others | onb;
    /* from the top: a rank also held elsewhere is a group of its own;
     * other ranks of mine form a group down to the next blocked rank, which
     * they do not include -- but for the winning card's rank (onb), which
     * h holds only where no other hand does: h's copy of it is free, and
     * heads the group below the winning card */
    uint32_t free = mine & ~others;
    while (mine) {
        int t = hb(mine);
        int lo = t;
        if (free >> t & 1) {
            /* the free ranks above the highest blocked rank below t (all
             * when none): a sentinel bit under the blocked ranks, shifted
             * up one, spares a test of none */
            uint32_t below = (block & ((1u << t) - 1)) << 1 | 1;
            uint32_t run = free & (~0u << (__builtin_clz(below) ^ 31));
            lo = __builtin_ctz(run);
            free &= ~run;
            mine &= ~run;
        } else {
            mine &= ~(1u << t);
        }
        mv[n].s = (uint8_t)s; mv[n].r = (uint8_t)lo; top[n] = (uint8_t)t; n++;
    }
    return n;
}

/* Legal moves of hand h, one per group of equivalent cards.  Cards of one
 * suit in h are equivalent when no other hand holds a copy of their rank or
 * of any rank between them, and the card winning the trick in progress does
 * not part them: its rank is not between them, nor the rank of any but
 * their highest card (h's copy of the winning card's rank, played after
 * it, loses to it as the lower cards do).  So both copies of a rank in one
 * hand are always one move, while a rank whose other copy is elsewhere is a
 * group of its own.  The other cards on the table do not part a group:
 * either every card of the group beats the winning card (which is not
 * between them), and no card on the table is then between them, or none
 * does, and then none is ever compared with a later card; after the trick
 * the cards on the table are gone, and the group's cards are adjacent among
 * those left (fewer moves at the second, third and fourth hands: 0.2-0.9 %
 * fewer trick nodes; the copy of the winning card's rank joining the cards
 * below it, fifty-first session: Flower Bridge -0.6 to -1.3 %).  mv[i].r =
 * lowest rank of the group, top[i] = highest. */
#if GEO_C == 1
/* inlined in the Contract Bridge build (measured: fewer instructions; more in
 * Flower Bridge's) */
#define GEN_MOVES_INLINE inline __attribute__((always_inline))
#else
#define GEN_MOVES_INLINE
#endif
static GEN_MOVES_INLINE int gen_moves(const Ctx *c, int h, Move *mv, uint8_t *top)
{
#if GEO_C == 1
    /* inlined in search: one loop over the suits, the winning card as a
     * mask a suit (written out per case, as below: +44 M instructions) */
    int n = 0, s0 = 0, s1 = GS(c);
    /* the card winning the trick, as a rank mask a suit */
    uint32_t onb[MAXS];
    for (int s = 0; s < GS(c); s++) onb[s] = 0;
    if (c->k > 0) {
        const Move *tr = c->tc[c->ti];
        int ls = tr[0].s;
        if (c->len[h][ls] > 0) { s0 = ls; s1 = ls + 1; }
        onb[tr[c->wpos].s] = 1u << tr[c->wpos].r;
    }
    for (int s = s0; s < s1; s++) n = gen_suit(c, h, s, onb[s], mv, top, n);
    return n;
#else
    /* gen_suit written out per case, with the winning card's mask only
     * for its own suit (Flower Bridge: -9 M instructions on tbx 0 2) */
    int n = 0;
    if (c->k > 0) {
        /* the card winning the trick, as a rank mask of its suit */
        const Move *tr = c->tc[c->ti];
        int ls = tr[0].s;
        Move w = tr[c->wpos];
        uint32_t wb = 1u << w.r;
        if (c->len[h][ls] > 0) return gen_suit(c, h, ls, w.s == ls ? wb : 0, mv, top, 0);
        for (int s = 0; s < GS(c); s++) n = gen_suit(c, h, s, s == w.s ? wb : 0, mv, top, n);
        return n;
    }
    for (int s = 0; s < GS(c); s++) n = gen_suit(c, h, s, 0, mv, top, n);
    return n;
#endif
}

/* ------------------------------------------------------------------ */
/* Move ordering                                                        */

/* The card and hand that win the trick in progress after the hand to play,
 * from the card *cw of hand *cwh winning it, when each later hand j plays
 * its card bc[j] as order_moves supposes.  k, L: c->k and c->leader, passed
 * from the caller's locals (order_moves's stores of scores would make the
 * compiler read them again for every card). */
static inline void settle_trick(const Ctx *c, int k, int L, const Move *bc, Move *cw, int *cwh)
{
    for (int j = k + 1; j < 4; j++) {
        int hj = (L + j) & 3;
        if (!beats(c, bc[j], *cw)) continue;
        if (((hj ^ *cwh) & 1) || (j < 3 && beats(c, bc[3], *cw))) { *cw = bc[j]; *cwh = hj; }
    }
}

/* Scores of the leads mv[0..n-1] of hand h, after DDS's lead weights (its
 * classes and units), adapted to identical cards.  A suit's "strongest
 * cards" are its cards by rank and, of equal copies, by the order they
 * would be played in the trick (leader, LHO, partner, RHO), as the first
 * copy played wins: w1, w2, w3 are the hands holding the three strongest
 * (so two copies of the top rank split between hands give its first holder
 * the winner and the other the second-best card).  A lead "wins" when it is
 * the top card or partner's top card outranks LHO's and is at least RHO's
 * (with trumps: and no opponent ruffs it, or partner overruffs).  rr: the
 * lead's rank among the suit's ranks from the top (1 = highest), so that
 * `+ rr` prefers low cards.  The killer lead (the last lead to cause a
 * cut-off at this trick) and the best lead remembered by the table (e) get
 * a bonus, larger for a lead that wins. */
static int lead_scores(const Ctx *c, int h, const Move *mv, const uint8_t *top, int n, const Entry *e, int *sc)
{
    int p = (h + 2) & 3, o1 = (h + 1) & 3, o2 = (h + 3) & 3;
    int b = 0, bv = INT_MIN;    /* the best lead: the first of the best score */
    int T = c->trump;
    if (trumps_out(c)) T = -1;
    const Move kl = c->killer[c->ti][0];
    int hint = -1;
    if (e) {
        /* read once: a store to a shared table may change them meanwhile
         * (a torn pair is only a poorer hint) */
        int es = __atomic_load_n(&e->bs, __ATOMIC_RELAXED), eg = __atomic_load_n(&e->bg, __ATOMIC_RELAXED);
        for (int i = 0, g = 0; i < n; i++) {
            if (mv[i].s != es) continue;
            if (g++ == eg) { hint = i; break; }
        }
    }
    int pT = T >= 0 ? hb(c->pres[p][T]) : -1;
    int o1T = T >= 0 ? hb(c->pres[o1][T]) : -1, o2T = T >= 0 ? hb(c->pres[o2][T]) : -1;
    /* With identical copies, a trump lead comes after the side suits'
     * leads of like score: by 10 when the side holds a copy of the top
     * trump (5 when not), 5 more when it holds more trumps than the
     * opponents (its trumps are then worth more as ruffs than as a trick
     * drawn).  Measured on Flower Bridge DD tables: trick nodes -0.1 to
     * -10.7 % on seven samples; on Bridge -5.7 to +2.0 % by sample, so
     * Bridge goes without it. */
    int tpen = 0;
    if (GC(c) > 1 && T >= 0) {
        int hT = hb(c->pres[h][T] | c->pres[p][T]);
        tpen = (hT >= (o1T > o2T ? o1T : o2T) ? 10 : 5)
             + (c->len[h][T] + c->len[p][T] > c->len[o1][T] + c->len[o2][T] ? 5 : 0);
    }
    /* per suit (the moves come suit by suit): the ranks present, the top
     * two, the holders of the strongest cards, whether LHO or RHO holds
     * a bare top card, whether the top card / another card wins, and the
     * suit's part of the score for winning and other leads */
    int cur = -1, t1 = 0, t2 = 0, w1 = -1, w2 = -1, lone = 0, wtop = 0, wother = 0, vw = 0, vo = 0;
    /* also per suit, in locals (the stores to sc would make the compiler
     * read them again for every lead): h's ranks held twice, the
     * opponents' ranks */
    uint32_t all = 0, dh = 0, opp = 0;
    /* the killer's rank if of this suit, else above every rank */
    int kr = 0xff;
    for (int i = 0; i < n; i++) {
        int s = mv[i].s, lo = mv[i].r, tp = top[i];
        if (s != cur) {
            cur = s;
            kr = kl.s == s ? kl.r : 0xff;
            all = c->pres[h][s] | c->pres[p][s] | c->pres[o1][s] | c->pres[o2][s];
            dh = c->dup[h][s];
            opp = c->pres[o1][s] | c->pres[o2][s];
            t1 = hb(all);
            t2 = hb(all & ~(1u << t1));
            int ws[3] = {-1, -1, -1}, nw = 0;
            if (GC(c) == 1) {
                /* one holder a rank, read off two masks (as in
                 * make_suit_code), of the top three ranks t1, t2, t3 */
                uint32_t odd = c->pres[1][s] | c->pres[3][s], high = c->pres[2][s] | c->pres[3][s];
                ws[0] = (int)((odd >> t1 & 1) | (high >> t1 & 1) << 1);
                if (t2 >= 0) {
                    ws[1] = (int)((odd >> t2 & 1) | (high >> t2 & 1) << 1);
                    int t3 = hb(all & ~(1u << t1) & ~(1u << t2));
                    if (t3 >= 0) ws[2] = (int)((odd >> t3 & 1) | (high >> t3 & 1) << 1);
                }
            }
            /* the hands' masks in the order they play from h */
            const uint32_t pj[4] = {c->pres[h][s], c->pres[o1][s], c->pres[p][s], c->pres[o2][s]};
            for (uint32_t m = GC(c) == 1 ? 0 : all; m && nw < 3; ) {
                int r = hb(m);
                m ^= 1u << r;
                for (int q = h, j = 0; j < 4 && nw < 3; j++, q = (q + 1) & 3) {
                    if (!(pj[j] >> r & 1)) continue;
                    ws[nw++] = q;
                    if (GC(c) == 2) { if (nw < 3 && (c->dup[q][s] >> r & 1)) ws[nw++] = q; }
                    else for (int x = CNT(c, q, s, r); x > 1 && nw < 3; x--) ws[nw++] = q;
                }
            }
            w1 = ws[0];
            w2 = ws[1];
            int w3 = ws[2];
            int l1 = c->len[o1][s], l2 = c->len[o2][s], lp = c->len[p][s];
            /* fewer opponent replies, smaller tree (a void opponent may play any card) */
            int nr = (l1 ? l1 : c->hlen[o1]) + (l2 ? l2 : c->hlen[o2]);
            int ptop = hb(c->pres[p][s]);
            int pwins = ptop >= 0 && ptop > hb(c->pres[o1][s]) && ptop >= hb(c->pres[o2][s]);
            lone = (l1 == 1 && w1 == o1) || (l2 == 1 && w1 == o2);
            /* the side holds the second and third strongest cards: it holds
             * the top one once the top card is out */
            int next = (w2 == p && w3 == p) ? 2 : (((w2 == h && w3 == p) || (w2 == p && w3 == h)) && lp > 1);
            if (T < 0) {
                int d = -(LEAD_REPLY_NT * nr) / 100;
                if (lp == 0) d -= 9;            /* partner neither wins nor unblocks */
                wtop = 1;
                wother = pwins;
                /* a winning lead: through LHO's second-best card, not into RHO's */
                vw = d + (w2 == o2 ? (l2 != 1 ? -1 : 0) : w2 == o1 ? (l1 != 1 ? 22 : 16) : 0)
                     + (((w2 != o1 || l1 == 1) && (w2 != o2 || l2 == 1)) ? 45 : 18);
                /* another lead: not into RHO's high card; toward partner's
                 * second-best card over LHO's top one */
                vo = d + ((w1 == o2 || w2 == o2) ? (l2 != 1 ? -10 : 0) : (w1 == o1 && w2 == p && lp != 1) ? 31 : 0)
                     + (next == 2 ? 35 : next ? 25 : 0);
            } else {
                int lT1 = c->len[o1][T], lT2 = c->len[o2][T], lTp = c->len[p][T];
                int r1 = s != T && l1 == 0 && lT1, r2 = s != T && l2 == 0 && lT2;   /* an opponent ruffs */
                int pruff = s != T && lp == 0 && lTp;
                int over = (!r1 || pT > o1T) && (!r2 || pT >= o2T);           /* partner's ruff wins */
                wtop = s == T || (pruff ? over : !r1 && !r2);
                wother = pwins ? s == T || (!r1 && !r2) : pruff && over;
                int d = -(LEAD_REPLY_TRUMP * nr) / 100 - (s == T ? tpen : 0);
                if (r1 || r2) d -= 12;
                if (pruff && l2 > 0) d += 17;
                if (w1 == o2 || w2 == o2) { if (l2 != 1) d -= 12; }
                else if (w1 == o1 && w2 == p) { if (lp != 1) d += 27; }
                /* a singleton to partner's winner, for a ruff back */
                if (s != T && c->len[h][s] == 1 && c->len[h][T] && lp > 1 && w1 == p) d += 19;
                vw = d;
                vo = d + (next == 2 ? 20 : next ? 13 : 0);
            }
        }
#if GEO_R && GEO_R <= 10
        int rr = 1 + popcnt10[all >> tp >> 1];
#else
        /* by table, as count_from (rank masks have MAXR <= 16 bits) */
        int rr = 1 + popcnt8[all >> tp >> 1 & 0xff] + popcnt8[all >> tp >> 9];
#endif
        int seq = tp > lo || (GC(c) > 1 && (dh >> tp & 1));     /* more than one card */
        int killer = (unsigned)(kr - lo) <= (unsigned)(tp - lo);     /* lo <= kr <= tp */
        int win = tp == t1 ? wtop : wother;
        int v;
        if (T < 0) {
            if (win) v = vw + rr + (killer ? 126 : i == hint ? 32 : 0);
            else {
                v = vo + (lone ? 28 + rr : w1 == h ? -17 + rr : !seq ? 12 + rr : tp == t2 ? 48 : 29 - rr);
                v += killer ? 47 : i == hint ? 19 : 0;
            }
        } else if (win) {
            if (lone) v = vw + 35 + rr;
            else if (w1 == h) v = w2 == p ? vw + 48 + rr : tp == t1 ? vw + 31 : vw - 3 + rr;
            else if (w1 == p) v = w2 == h ? vw + 42 + rr : vw + 28 + rr;
            else if (seq && tp == t2) v = vw + 40;
            else if (seq) v = vw + 22 + rr;
            else v = vw + 11 + rr;
            v += killer ? 55 : i == hint ? 18 : 0;
        } else {
            if (lone) v = vo + 2 + rr;
            else if (w1 == h) v = w2 == p ? vo + 33 + rr : tp == t1 ? vo + 38 : vo - 14 + rr;
            else if (w1 == p) v = vo + 34 + rr;
            else if (seq && tp == t2) v = vo + 35;
            else v = vo + 2 + GR(c) - tp;
            if (killer) v += 18;
        }
        /* a lead whose identical copy an opponent holds: he cannot take
         * the trick with that copy, played after it (tuned on node counts
         * of Flower Bridge tables: for RHO's copy as well as LHO's, 1-10 %
         * fewer trick nodes on five samples) */
        if (GC(c) > 1 && !(dh >> tp & 1) && (opp >> tp & 1)) v += 12;
        sc[i] = v;
        if (v > bv) { bv = v; b = i; }
    }
    return b;
}

/* order_moves's scores for the hand h to play inside a trick (k > 0) when
 * it follows suit, in closed form: a card at or above `win` beats the one
 * winning now; the next hand (an opponent, with its card b1 of bc) takes it
 * over below `under`, and partner then takes it back or not; lwh: who wins
 * after a card that does not beat the one winning now. */
typedef struct { int win, under, back, pv, nv, tp, t2; } Follow;

static inline void follow_terms(const Ctx *c, int h, const Move *bc, Move w, int lwh, Follow *f)
{
    int k = c->k, T = c->trump, ls = c->tc[c->ti][0].s;
    Move b1 = k < 3 ? bc[k + 1] : (Move){0xff, 0};
    f->win = w.s == ls ? w.r + 1 : GR(c);
    f->under = b1.s == ls ? b1.r : b1.s != 0xff && b1.s == T ? GR(c) : 0;
    f->back = k == 1 && beats(c, bc[3], b1);
    /* partner wins (as the second hand: with his card bc[3]) */
    f->pv = 300 - (k == 1 && (GC(c) > 1 || bc[3].s != ls || hb(c->pres[c->leader][ls]) > hb(c->pres[h][ls])) ? 120 : 0);
    f->tp = ls == T ? 30 : 0;
    f->nv = lwh == ((h + 2) & 3) ? f->pv : 50 - f->tp;
    /* the opponent taking the trick over spends his top card (see below) */
    int o1 = (h + 1) & 3;
    f->t2 = b1.s != ls ? GR(c) : GC(c) > 1 && (c->dup[o1][ls] >> b1.r & 1) ? b1.r
            : hb(c->pres[o1][ls] & ~(1u << b1.r));
}

static inline int follow_score(const Follow *f, int lo)
{
    if (lo < f->win) return f->nv - lo;
    if (lo >= f->under) return 200 - lo;
    if (f->back) return f->pv - lo;
    return 80 - lo - f->tp + (lo >= f->t2 ? 10 : 0);
}

/* order_moves's score for the card m of hand h, void in the suit led (ls),
 * inside a trick: w, bc, lw and lwh as there, k and L as in settle_trick;
 * dadj: discard_adj's for m's suit (when a discard). */
static inline int void_score(const Ctx *c, int k, int L, int h, Move m, const Move *bc, Move w, Move lw, int lwh, int ls, int dadj)
{
    int p = (h + 2) & 3, T = c->trump;
    int s = m.s, lo = m.r;
    int wins = beats(c, m, w);
    Move cw = lw;
    int cwh = lwh;
    if (wins) {
        cw = m;
        cwh = h;
        settle_trick(c, k, L, bc, &cw, &cwh);
    }
    int ruff = s == T && ls != T;
    int v;
    if (cwh == p) {
        /* partner wins: play low; but the second hand first wins
         * the trick himself when his top card will not be the
         * highest left (the leader holds a higher one), when
         * partner would take it only by ruffing (a trump spent),
         * and always with identical copies (tuned on node counts:
         * it helps Flower Bridge, not Bridge) */
        v = 300 - lo - (ruff ? 40 : 0);
        if (k == 1 && (GC(c) > 1 || (cw.s != ls && s == ls)
                          || (cw.s == ls && hb(c->pres[L][ls]) > hb(c->pres[h][ls])))) v -= 120;
    }
    else if (cwh == h) v = 200 - lo - (ruff ? 40 : 0);  /* the cheapest winner */
    else {
        /* the trick is lost: lowest cards, discards from long
         * suits; but first a card that beats the one winning now
         * and makes the opponent who takes the trick spend his top
         * card (it is at least as high as his second-best one: an
         * equal copy played later does not win), then the cheapest
         * card that beats the one winning now (tuned on node counts
         * of random deals) */
        v = 50 - lo - (s == T ? 30 : 0) + (s != ls ? c->len[h][s] : 0);
        if (wins) {
            v += 30;
            if (cw.s == s) {
                uint32_t hm = c->pres[cwh][s];    /* holds cw */
                int t1 = cw.r;
                int t2 = GC(c) > 1 && (c->dup[cwh][s] >> t1 & 1) ? t1 : hb(hm & ~(1u << t1));
                if (lo >= t2) v += 10;
            }
        }
    }
    if (s != ls && s != T) v += dadj;
    return v;
}

/* A discard keeps a bare top card or a guarded second one (the hand's top
 * card with as many cards as the other hands hold above it, plus one), when
 * it can (DDS does the same), and comes from a suit in which the other hands
 * hold at least as many cards above its top one as it holds (no trick to win
 * there) only after the others (tuned on node counts: the other way round
 * costs 4 % on Flower Bridge): the score's part for suit s, the same for
 * every discard of the suit. */
static inline int discard_adj(const Ctx *c, int h, int s)
{
    int p = (h + 2) & 3, o1 = (h + 1) & 3, o2 = (h + 3) & 3;
    int th = hb(c->pres[h][s]);
    int above = count_from(c, p, s, th + 1) + count_from(c, o1, s, th + 1) + count_from(c, o2, s, th + 1);
    int dadj = 0;
    if (c->len[h][s] <= 2 && above + 1 == c->len[h][s]) dadj -= 16;
    if (above >= c->len[h][s]) dadj -= 6;
    return dadj;
}

/* The move at index b exchanged with the first, with its score and top. */
static inline void exchange_moves(int *sc, Move *mv, uint8_t *top, int b)
{
    int v = sc[b];
    Move m = mv[b];
    uint8_t t = top[b];
    sc[b] = sc[0]; mv[b] = mv[0]; top[b] = top[0];
    sc[0] = v; mv[0] = m; top[0] = t;
}

/* Scores the moves (sc) and puts the best first (the first of equal
 * scores) by exchanging it with the first: most nodes that cut off do so
 * with it, and the rest are sorted (sort_rest, given the index returned)
 * only when it does not, in the order they had (the first move back in
 * its place before the others). */
static int order_moves(const Ctx *c, int h, Move *mv, uint8_t *top, int n, const Entry *e, int *sc)
{
    int T = c->trump, b = 0, bv = INT_MIN;     /* the best move: the first of the best score */
    int k = c->k, L = c->leader;
    if (k == 0) {
        b = lead_scores(c, h, mv, top, n, e, sc);
    } else {
        Move w = c->tc[c->ti][c->wpos];
        int wh = (L + c->wpos) & 3;
        int ls = c->tc[c->ti][0].s;
        /* the card each later hand would take the trick with: its top card
         * of the led suit, or its top trump when void (none: suit 0xff) */
        Move bc[4];
        for (int j = k + 1; j < 4; j++) {
            int hj = (L + j) & 3;
            bc[j].s = 0xff;
            bc[j].r = 0;
            if (c->len[hj][ls]) { bc[j].s = (uint8_t)ls; bc[j].r = (uint8_t)hb(c->pres[hj][ls]); }
            else if (T >= 0 && c->len[hj][T]) { bc[j].s = (uint8_t)T; bc[j].r = (uint8_t)hb(c->pres[hj][T]); }
        }
        /* Who wins the trick after this card, if each later hand plays
         * that best card when it takes the trick over from the other
         * side, or from its partner's card that the hand after it could
         * beat (an equal copy played later never takes over): the same
         * for every card that does not beat the one winning now. */
        Move lw = w;
        int lwh = wh;
        settle_trick(c, k, L, bc, &lw, &lwh);
        int dsuit = -1, dadj = 0;
        if (c->pres[h][ls]) {
            /* following suit: the scores below come to this */
            Follow f;
            follow_terms(c, h, bc, w, lwh, &f);
            for (int i = 0; i < n; i++) {
                int v = follow_score(&f, mv[i].r);
                sc[i] = v;
                if (v > bv) { bv = v; b = i; }
            }
        } else for (int i = 0; i < n; i++) {
            int s = mv[i].s;
            /* made at a suit's first discard (the moves come suit by suit) */
            if (s != ls && s != T && s != dsuit) {
                dsuit = s;
                dadj = discard_adj(c, h, s);
            }
            int v = void_score(c, k, L, h, mv[i], bc, w, lw, lwh, ls, dadj);
            sc[i] = v;
            if (v > bv) { bv = v; b = i; }
        }
    }
    if (b) exchange_moves(sc, mv, top, b);
    return b;
}

/* The move order_moves puts first for the last hand h of a trick (k == 3),
 * found without generating the moves: with no later hand, a card's score
 * depends only on whether it beats the card winning now, and within a suit
 * the lowest card of each kind scores highest (a group's representative is
 * its lowest card, and the winning card on the table divides groups).  So
 * the lowest card that keeps partner's trick, else the cheapest winner, else
 * the lowest loser; when void, each suit's best card scored as order_moves
 * does, the first suit of the best score (the moves come suit by suit).
 * Most last hands cut off with it, and never generate the others. */
static Move last_hand_first(const Ctx *c, int h)
{
    /* h plays fourth: partner played second, so partner wins at wpos 1 */
    int wpos = c->wpos, pw = wpos == 1;
    const Move *tr = c->tc[c->ti];
    Move w = tr[wpos];
    int ls = tr[0].s;
    Move m;
    uint32_t mine = c->pres[h][ls];
    if (mine) {
        /* following suit: partner's trick keeps the lowest card; else the
         * lowest card above the winner's (of the same suit), if any */
        uint32_t up = !pw && w.s == ls ? mine & ~((2u << w.r) - 1) : 0;
        m.s = (uint8_t)ls;
        m.r = (uint8_t)__builtin_ctz(up ? up : mine);
        return m;
    }
    int p = (h + 2) & 3, o1 = (h + 1) & 3, o2 = (h + 3) & 3;
    int T = c->trump;
    int bv = -1000, bs = 0, br = 0;
    for (int s = 0; s < GS(c); s++) {
        uint32_t x = c->pres[h][s];
        if (!x) continue;
        int lo = __builtin_ctz(x), v;
        if (s == T) {
            /* every trump wins if the winner is not one; else those above it */
            uint32_t up = w.s == T ? x & ~((2u << w.r) - 1) : x;
            if (pw) v = up == x ? 160 - lo : 260 - lo;
            else if (up) { lo = __builtin_ctz(up); v = 160 - lo; }
            else v = 20 - lo + c->len[h][s];
        } else {
            int th = hb(x);
            int above = count_from(c, p, s, th + 1) + count_from(c, o1, s, th + 1) + count_from(c, o2, s, th + 1);
            v = pw ? 300 - lo : 50 - lo + c->len[h][s];
            if (c->len[h][s] <= 2 && above + 1 == c->len[h][s]) v -= 16;
            if (above >= c->len[h][s]) v -= 6;
        }
        if (v > bv) { bv = v; bs = s; br = lo; }
    }
    m.s = (uint8_t)bs;
    m.r = (uint8_t)br;
    return m;
}

/* order_moves's bc for the second hand h (k == 1), and who wins after a
 * card that does not beat the one led (*lw, *lwh) */
static inline void second_trick(const Ctx *c, int h, Move *bc, Move *lw, int *lwh)
{
    int p = (h + 2) & 3, o1 = (h + 1) & 3;
    int T = c->trump;
    int ls = c->tc[c->ti][0].s;
    for (int j = 2; j < 4; j++) {
        int hj = j == 2 ? o1 : p;
        bc[j].s = 0xff;
        bc[j].r = 0;
        if (c->len[hj][ls]) { bc[j].s = (uint8_t)ls; bc[j].r = (uint8_t)hb(c->pres[hj][ls]); }
        else if (T >= 0 && c->len[hj][T]) { bc[j].s = (uint8_t)T; bc[j].r = (uint8_t)hb(c->pres[hj][T]); }
    }
    *lw = c->tc[c->ti][0];
    *lwh = c->leader;
    settle_trick(c, 1, c->leader, bc, lw, lwh);
}

/* The move order_moves puts first for the second hand h (k == 1) when it is
 * void in the suit led: scored as order_moves does, the first of the best
 * score in the order of gen_moves; of a suit discarded from, only its lowest
 * card (the best: the score falls with the rank).  Not inlined: rare, and
 * its registers cost more in search. */
static __attribute__((noinline)) Move void_second_first(const Ctx *c, int h)
{
    Move w = c->tc[c->ti][0], bc[4], lw;
    int lwh;
    second_trick(c, h, bc, &lw, &lwh);
    int T = c->trump, bv = INT_MIN;
    Move best = w;
    for (int s = 0; s < GS(c); s++) {
        Move mv[MAXR];
        uint8_t top[MAXR];
        if (s == T) {
            int n = gen_suit(c, h, s, 0, mv, top, 0);
            for (int i = 0; i < n; i++) {
                int v = void_score(c, 1, c->leader, h, mv[i], bc, w, lw, lwh, w.s, 0);
                if (v > bv) { bv = v; best = mv[i]; }
            }
        } else if (c->pres[h][s]) {
            mv[0].s = (uint8_t)s;
            mv[0].r = (uint8_t)__builtin_ctz(c->pres[h][s]);
            /* discard_adj is never positive: made only when it may count */
            int v = void_score(c, 1, c->leader, h, mv[0], bc, w, lw, lwh, w.s, 0);
            if (v > bv && (v += discard_adj(c, h, s)) > bv) { bv = v; best = mv[0]; }
        }
    }
    return best;
}

/* The same for the second hand h (k == 1) when it follows suit: a group's
 * score (follow_score, written out here: measured cheaper than through
 * follow_terms) changes with its lowest card lo only by -lo and
 * where lo crosses the led card (it wins), the left-hand opponent's best
 * card (he takes it over below it) and his second-best card; those ranks
 * are held by other hands or on the table, so no group spans one, and the
 * best group is the lowest one at or above one of them (or the lowest of
 * all), the highest of equal scores first (order_moves meets a suit's
 * groups from the top).  Returns 0 when h is void in the suit led. */
static int second_hand_first(const Ctx *c, int h, Move *first)
{
    int p = (h + 2) & 3, o1 = (h + 1) & 3, L = c->leader;
    int T = c->trump;
    Move w = c->tc[c->ti][0];
    int ls = w.s;
    uint32_t mine = c->pres[h][ls];
    if (!mine) return 0;
    Move bc[4], lw;
    int lwh;
    second_trick(c, h, bc, &lw, &lwh);
    /* partner wins (his card bc[3] then wins): as order_moves scores it */
    int pv = 300 - (GC(c) > 1 || bc[3].s != ls || hb(c->pres[L][ls]) > hb(mine) ? 120 : 0);
    int tp = ls == T ? 30 : 0;
    /* o1 takes over a winning card below rank `under`; then partner takes
     * it back or not */
    int under = bc[2].s == ls ? bc[2].r : bc[2].s != 0xff && bc[2].s == T ? GR(c) : 0;
    int back = beats(c, bc[3], bc[2]);
    int t2 = -1;
    uint32_t cut = 1 | 2u << w.r;
    if (bc[2].s == ls) {
        int t1 = bc[2].r;
        t2 = GC(c) > 1 && (c->dup[o1][ls] >> t1 & 1) ? t1 : hb(c->pres[o1][ls] & ~(1u << t1));
        cut |= 1u << t1;
        if (t2 >= 0) cut |= 1u << t2;
    }
    int bv = -1000, br = 0, last = -1;
    while (cut) {
        int y = hb(cut);
        cut ^= 1u << y;
        uint32_t a = mine & ~((1u << y) - 1);
        if (!a) continue;
        int lo = __builtin_ctz(a);
        if (lo == last) continue;
        last = lo;
        int v;
        if (lo <= w.r) v = lwh == p ? pv - lo : 50 - lo - tp;
        else if (lo >= under) v = 200 - lo;
        else if (back) v = pv - lo;
        else v = 80 - lo - tp + (bc[2].s == ls && lo >= t2 ? 10 : 0);
        if (v > bv) { bv = v; br = lo; }
    }
    first->s = (uint8_t)ls;
    first->r = (uint8_t)br;
    return 1;
}

/* The moves after the first, best first, by a stable insertion sort: with
 * order_moves (b: its index of the best move, exchanged with the first),
 * the order of a stable sort of them all. */
static void sort_rest(int *sc, Move *mv, uint8_t *top, int n, int b)
{
    if (b > 1) {
        /* the first move, at b, back before the others */
        int v = sc[b];
        Move m = mv[b];
        uint8_t t = top[b];
        for (int j = b; j > 1; j--) { sc[j] = sc[j - 1]; mv[j] = mv[j - 1]; top[j] = top[j - 1]; }
        sc[1] = v; mv[1] = m; top[1] = t;
    }
    for (int i = 2; i < n; i++) {
        int v = sc[i];
        Move m = mv[i];
        uint8_t t = top[i];
        int j = i - 1;
        while (j > 0 && sc[j] < v) { sc[j + 1] = sc[j]; mv[j + 1] = mv[j]; top[j + 1] = top[j]; j--; }
        sc[j + 1] = v; mv[j + 1] = m; top[j + 1] = t;
    }
}

/* ------------------------------------------------------------------ */
/* Cut-offs at the start of a trick                                     */

/* The rank threshold for u tricks that hand h cashes from the top of suit s,
 * where mo is the highest card of the other hands (-1: none) and top the
 * number of h's cards at least as high.  Only h's u highest cards are led,
 * or, for u > top, his top cards followed by the rest once they have drawn
 * every other hand's cards (which the suit lengths tell): the threshold is
 * the rank of the last top card led, as every card at or above it is h's
 * (but for copies of rank mo, which come later), and every other card is
 * lower.  With no other hand holding the suit, no rank matters (R). */
static int top_rel(const Ctx *c, int h, int s, int mo, int top, int u)
{
    if (mo < 0) return GR(c);
    if (u > top) u = top;
    uint32_t m = c->pres[h][s];
    int n = 0;
    while (m) {
        int r = hb(m);
        n += CNT(c, h, s, r);
        if (n >= u) return r;
        m &= ~(1u << r);
    }
    return mo;
}

/* RELH: the copies of rank t of suit s that quick_tricks's count for the
 * leader L relies on: L's alone where he holds one (see there), else all. */
static inline uint8_t qt_copies(const Ctx *c, int L, int s, int t)
{
    return t < GR(c) && (c->pres[L][s] >> t & 1) ? (uint8_t)(1u << L) : 0xf;
}

/* Tricks the leader's side can surely cash from the top, keeping the lead in
 * the leader's hand: a card at least as high as every other hand's cards of
 * its suit wins when led (an equal copy played later does not outrank it).
 * `spent`: partner has already spent that many non-trumps (on an entry),
 * so has that many fewer to discard.  When the count reaches `want`, rel[s]
 * is lowered to the lowest rank the count relies on, for a set of suits
 * just large enough to reach `want`. */
static int quick_tricks(const Ctx *c, int L, int want, int spent, uint8_t *rel)
{
    int p = (L + 2) & 3, o1 = (L + 1) & 3, o2 = (L + 3) & 3;
    int T = c->trump;
    int side = 0, trumpq = 0, side2 = 0;
    int qs[MAXS], mos[MAXS], tops[MAXS], qu[MAXS];
    const uint32_t *xL = c->pres[L], *xp = c->pres[p], *x1 = c->pres[o1], *x2 = c->pres[o2];
    for (int s = 0; s < GS(c); s++) {
        qs[s] = 0;
        qu[s] = 0;
        mos[s] = -1;
        tops[s] = 0;
        uint32_t mine = xL[s], oth = xp[s] | x1[s] | x2[s];
        /* none unless the leader holds a copy of the top rank (his highest
         * is at least theirs) */
        if ((oth & ~mine) >= mine) continue;
        int mo = hb(oth);
        int q = 0;
        if (mo < 0) q = c->len[L][s];
        else q = count_from(c, L, s, mo);
        tops[s] = q;
        /* once those have drawn every other hand's cards of the suit, the
         * rest of the leader's win too */
        if (q >= c->len[p][s] && q >= c->len[o1][s] && q >= c->len[o2][s]) q = c->len[L][s];
        mos[s] = mo;
        if (s == T) { trumpq = q; qs[s] = qu[s] = q; continue; }
        qu[s] = q;
        side2 += q;
        if (T >= 0) {
            /* an opponent with trumps can ruff once void */
            if (c->len[o1][T] > 0 && q > c->len[o1][s]) q = c->len[o1][s];
            if (c->len[o2][T] > 0 && q > c->len[o2][s]) q = c->len[o2][s];
        }
        qs[s] = q;
        side += q;
    }
    int drawn = 0;
    if (T >= 0 && side2 > side && side + trumpq < want) {
        /* the leader's top trumps, cashed first, draw the opponents' when
         * at least as many as either holds: no ruffs then */
        int d = c->len[o1][T] > c->len[o2][T] ? c->len[o1][T] : c->len[o2][T];
        if (trumpq >= d) {
            drawn = 1;
            side = side2;
            for (int s = 0; s < GS(c); s++) qs[s] = qu[s];
        }
    }
    int budget = MAXT;          /* side-suit tricks partner can discard to */
    if (T >= 0 && c->len[p][T] > 0) {
        /* partner must be able to play a non-trump to every side-suit round,
         * or he would ruff and take the lead away */
        int pnt = c->hlen[p] - c->len[p][T] - spent;
        if (side > pnt) side = pnt;
        budget = pnt;
    }
    int tot = side + trumpq;
    if (tot >= want) {
        /* the suits whose cards cashed leave the most ranks out first
         * (the last one only for what is still wanted; side suits only
         * as far as partner can discard) */
        int used[MAXS] = {0}, got = 0;
        if (drawn) {
            int t = top_rel(c, L, T, mos[T], tops[T], trumpq);
            used[T] = 1;
            got = trumpq;
            if (rel[T] > t) { rel[T] = (uint8_t)t; if (RELH) rel[4 + T] = qt_copies(c, L, T, t); }
        }
        while (got < want) {
            int bs = -1, bt = -1;
            for (int s = 0; s < GS(c); s++) {
                int a = s == T || qs[s] < budget ? qs[s] : budget;
                if (used[s] || !a) continue;
                int u = want - got < a ? want - got : a;
                int t = top_rel(c, L, s, mos[s], tops[s], u);
                if (bs < 0 || t > bt || (t == bt && qs[s] > qs[bs])) { bs = s; bt = t; }
            }
            if (bs < 0) break;
            used[bs] = 1;
            int a = bs == T || qs[bs] < budget ? qs[bs] : budget;
            got += a;
            if (bs != T) budget -= a;
            if (rel[bs] > bt) { rel[bs] = (uint8_t)bt; if (RELH) rel[4 + bs] = qt_copies(c, L, bs, bt); }
        }
    }
    return tot;
}

/* A suit in which the leader L can lead low to a card of his partner that
 * surely wins the trick (an entry), or -1; *ethr gets the lowest rank that
 * argument relies on: P's top card.  The leader must have a lower card to
 * lead; the opponent playing second must hold nothing as high (his copy
 * would come first), the one playing last nothing higher, and neither may
 * ruff. */
static int partner_entry(const Ctx *c, int L, int *ethr)
{
    int P = (L + 2) & 3, o1 = (L + 1) & 3, o2 = (L + 3) & 3;
    int T = c->trump;
    for (int s = 0; s < GS(c); s++) {
        if (!c->len[L][s] || !c->pres[P][s]) continue;
        int ptop = hb(c->pres[P][s]);
        if (!(c->pres[L][s] & ((1u << ptop) - 1))) continue;
        int m1 = hb(c->pres[o1][s]), m2 = hb(c->pres[o2][s]);
        if (m1 >= ptop || m2 > ptop) continue;
        if (T >= 0 && s != T &&
            ((c->len[o1][s] == 0 && c->len[o1][T] > 0) || (c->len[o2][s] == 0 && c->len[o2][T] > 0)))
            continue;
        /* with every card at or above P's top one held as now, the
         * opponents' other cards are lower, and the leader's lower card is
         * there by the suit length */
        *ethr = ptop;
        return s;
    }
    return -1;
}

/* Quick tricks of the leader's partner P, reached by leading a card of a
 * suit in which P holds a top card (P then cashes from his own hand);
 * entry, ethr: as found by partner_entry. */
static int partner_quick_tricks(const Ctx *c, int L, int want, int entry, int ethr, uint8_t *rel)
{
    if (entry < 0) return 0;
    /* the leader has spent one card on the entry: one fewer to follow
     * P's side-suit rounds with */
    int q = quick_tricks(c, (L + 2) & 3, want, entry != c->trump, rel);
    if (RELH ? rel[entry] >= ethr : rel[entry] > ethr) {
        rel[entry] = (uint8_t)ethr;
        if (RELH) rel[4 + entry] = 0xf;     /* every copy of P's top card's rank */
    }
    return q;
}

/* The leader's and his partner's top cards together, at No Trump or when
 * the opponents have no trumps once the leader has drawn them: the leader L
 * cashes his own top cards in suits where P has none counted (his top
 * trumps first: they must be at least as many as either opponent's trumps,
 * who then cannot ruff), then leads low to P's top card of an entry suit
 * (as above) and P cashes his.  P plays a card to each of L's tricks: a
 * trump to L's trump rounds while he has one, else one of his non-trumps not
 * counted (not the entry card; a trump would ruff and take the lead), so
 * L's count is capped by those.  Likewise L, if trumps are left to him after
 * his own tricks and the entry, plays a non-trump to each of P's side-suit
 * tricks, so those are capped by L's non-trumps left.  entry, ethr: as
 * found by partner_entry. */
static int joint_quick_tricks(const Ctx *c, int L, int want, int entry, int ethr, uint8_t *rel)
{
    int P = (L + 2) & 3;
    if (entry < 0) return 0;
    int qh[2][MAXS], mo[2][MAXS], tp[2][MAXS], tot[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        int a = i ? P : L;
        for (int s = 0; s < GS(c); s++) {
            uint32_t mine = c->pres[a][s], oth = c->pres[(a + 1) & 3][s] | c->pres[(a + 2) & 3][s] | c->pres[(a + 3) & 3][s];
            qh[i][s] = tp[i][s] = 0;
            mo[i][s] = -1;
            if ((oth & ~mine) >= mine) continue;    /* no copy of the top rank: none */
            int m = hb(oth);
            int n = 0;
            if (m < 0) n = c->len[a][s];
            else n = count_from(c, a, s, m);
            tp[i][s] = n;
            if (n >= c->len[(a + 1) & 3][s] && n >= c->len[(a + 2) & 3][s] && n >= c->len[(a + 3) & 3][s])
                n = c->len[a][s];
            qh[i][s] = n;
            mo[i][s] = m;
        }
    }
    for (int s = 0; s < GS(c); s++) {
        if (qh[1][s]) qh[0][s] = 0;
        if (s == entry) qh[0][s] = 0;
        tot[0] += qh[0][s];
        tot[1] += qh[1][s];
    }
    int T = c->trump, lt = 0, pt = 0, d = 0, ptr = 0;
    if (T >= 0) {
        lt = qh[0][T];
        pt = qh[1][T];
        ptr = c->len[P][T];
        d = c->len[(L + 1) & 3][T] > c->len[(L + 3) & 3][T] ? c->len[(L + 1) & 3][T] : c->len[(L + 3) & 3][T];
        if (lt < d) return 0;
    }
    /* P's non-trumps neither counted nor the entry card, less his discards
     * to L's trump rounds beyond his trumps */
    int spare = c->hlen[P] - ptr - (tot[1] - pt) - (entry != T && !qh[1][entry] ? 1 : 0);
    if (lt > ptr) spare -= lt - ptr;
    if (spare < 0) return 0;
    int lside = tot[0] - lt;
    if (lside > spare) lside = spare;
    tot[0] = lt + lside;
    if (T >= 0 && c->len[L][T] - lt - (entry == T) > 0) {
        int lnt = c->hlen[L] - c->len[L][T] - lside - (entry != T);
        if (tot[1] - pt > lnt) tot[1] = pt + lnt;
    }
    int q = tot[0] + tot[1];
    if (q >= want) {
        /* L cashes his top trumps (P's spare cards and L's trumps left to
         * him were counted so), then only what is needed, from his suits
         * with the most tricks */
        int got = tot[1], used[MAXS] = {0};
        if (lt) { used[T] = 1; got += lt; }
        while (got < want) {
            int bs = -1;
            for (int s = 0; s < GS(c); s++)
                if (!used[s] && qh[0][s] && (bs < 0 || qh[0][s] > qh[0][bs])) bs = s;
            used[bs] = 1;
            if (want - got < qh[0][bs]) qh[0][bs] = want - got;
            got += qh[0][bs];
        }
        for (int s = 0; s < GS(c); s++) {
            if (!used[s]) qh[0][s] = 0;
            for (int i = 0; i < 2; i++) {
                if (!qh[i][s]) continue;
                int t = top_rel(c, i ? P : L, s, mo[i][s], tp[i][s], qh[i][s]);
                if (rel[s] > t) rel[s] = (uint8_t)t;
            }
        }
        if (rel[entry] > ethr) rel[entry] = (uint8_t)ethr;
    }
    return q;
}

/* A trick for the leader L's side by a ruff of his partner P: L leads a
 * side suit P is void in while P holds trumps.  P ruffs with his top trump;
 * it wins unless an opponent void in the suit holds a trump that takes it
 * over: the second hand (ruffing before P) must hold none as high, the
 * fourth (after P) none higher, as an equal copy played later does not
 * outrank.  Only suit lengths matter, and P's top trump when an opponent
 * could ruff: rel[T] is lowered to it then. */
static int partner_ruff(const Ctx *c, int L, uint8_t *rel)
{
    int T = c->trump;
    int P = (L + 2) & 3, o1 = (L + 1) & 3, o2 = (L + 3) & 3;
    if (T < 0 || !c->len[P][T]) return 0;
    int pt = hb(c->pres[P][T]), thr = -1;
    for (int s = 0; s < GS(c); s++) {
        if (s == T || !c->len[L][s] || c->len[P][s]) continue;
        int r1 = !c->len[o1][s] && c->len[o1][T], r2 = !c->len[o2][s] && c->len[o2][T];
        if (r1 && hb(c->pres[o1][T]) >= pt) continue;
        if (r2 && hb(c->pres[o2][T]) > pt) continue;
        if (!r1 && !r2) return 1;
        thr = pt;
    }
    if (thr < 0) return 0;
    if (rel[T] > thr) rel[T] = (uint8_t)thr;
    return 1;
}

typedef int32_t v4i __attribute__((vector_size(16)));
_Static_assert(MAXS % 4 == 0 && MAXR <= 16 && MAXT < 256, "sure_ways reads suits by four");

/* Can quick_tricks for the hand X leading reach `want` under its limits
 * with trumps, from sure_ways's bound q (xs: its part per suit; see
 * sure_ways), spending nothing on an entry (the most partner can discard)?
 * Partner's discards first: they need no loop over the suits. */
static inline int qt_reach(const Ctx *c, int X, const int *xs, int q, int want)
{
    int T = c->trump, P = (X + 2) & 3;
    int tq = xs[T];
    if (c->len[P][T] > 0 && tq + c->hlen[P] - c->len[P][T] < want) return 0;
    const int *n1 = c->len[(X + 1) & 3], *n3 = c->len[(X + 3) & 3];
    if (tq < n1[T] || tq < n3[T]) {
        for (int s = 0; s < GS(c); s++) {
            int x = xs[s];
            if (!x || s == T) continue;
            if (n1[T] && x > n1[s]) x = n1[s];
            if (n3[T] && x > n3[s]) x = n3[s];
            q -= xs[s] - x;
        }
    }
    return q >= want;
}

/* Which of the four ways of search's sure-trick count could reach `want`
 * for the leader L: bit 0 quick_tricks, 1 partner_quick_tricks, 2
 * joint_quick_tricks, 3 partner_ruff.  The first three count cards of a
 * suit only for a hand holding a copy of its top rank (else another hand
 * holds a card above all of it), at most its length, and the joint count
 * counts the leader's suit only where P counts none: upper bounds costing a
 * few operations a suit, where counting costs many.  Also the joint count's
 * condition on trumps, which fails it most of the time with trumps; and
 * quick_tricks's own limits with trumps on the first two bounds (qt_reach:
 * a side suit counts no more cards than an opponent holding trumps holds
 * of it, unless the hand's top trumps may draw the opponents' (as many as
 * either holds), and the side suits no more than partner's non-trumps when
 * he holds a trump): quick_tricks's instructions fell by half. */
static unsigned sure_ways(const Ctx *c, int L, int want)
{
    int P = (L + 2) & 3, T = c->trump;
    /* the three bounds, a byte each (a hand holds at most MAXT cards);
     * ls, ps: the first two's suits */
    v4i acc = {0};
    int ls[MAXS], ps[MAXS];
    /* four suits at once (a suit past S holds no card); rank masks are
     * compared as signed, as they have MAXR <= 16 bits */
    for (int s = 0; s < GS(c); s += 4) {
        v4i h0, h1, h2, h3, xl, xp, nl, np;
        memcpy(&h0, &c->pres[0][s], sizeof h0);
        memcpy(&h1, &c->pres[1][s], sizeof h1);
        memcpy(&h2, &c->pres[2][s], sizeof h2);
        memcpy(&h3, &c->pres[3][s], sizeof h3);
        memcpy(&xl, &c->pres[L][s], sizeof xl);
        memcpy(&xp, &c->pres[P][s], sizeof xp);
        memcpy(&nl, &c->len[L][s], sizeof nl);
        memcpy(&np, &c->len[P][s], sizeof np);
        v4i all = h0 | h1 | h2 | h3;
        /* a hand's cards include the top rank iff the other ranks are
         * below its own top one */
        v4i l = ((all ^ xl) < xl) & nl;
        v4i p = ((all ^ xp) < xp) & np;
        memcpy(&ls[s], &l, sizeof l);
        memcpy(&ps[s], &p, sizeof p);
        acc += l | p << 8 | (p | ((p == 0) & l)) << 16;
    }
    acc += __builtin_shuffle(acc, (v4i){2, 3, 0, 1});
    acc += __builtin_shuffle(acc, (v4i){1, 0, 3, 2});
    int b = acc[0];
    unsigned ways = (unsigned)((b & 0xff) >= want) | (unsigned)((b >> 8 & 0xff) >= want) << 1
                    | (unsigned)((b >> 16) >= want) << 2 | (unsigned)(want == 1) << 3;
    if ((ways & 1) && T >= 0 && !qt_reach(c, L, ls, b & 0xff, want)) ways &= ~1u;
    if ((ways & 2) && T >= 0 && !qt_reach(c, P, ps, b >> 8 & 0xff, want)) ways &= ~2u;
    if ((ways & 4) && T >= 0) {
        /* the joint count, while the opponents hold trumps, needs the
         * leader's top trumps (P holding none of the top rank) to be at
         * least as many as either opponent's trumps */
        int d = c->len[(L + 1) & 3][T] > c->len[(L + 3) & 3][T] ? c->len[(L + 1) & 3][T] : c->len[(L + 3) & 3][T];
        uint32_t all = c->pres[0][T] | c->pres[1][T] | c->pres[2][T] | c->pres[3][T];
        uint32_t xl = c->pres[L][T], xp = c->pres[P][T];
        if (d && ((all ^ xl) >= xl || (all ^ xp) < xp || c->len[L][T] < d)) ways &= ~4u;
    }
    return ways;
}

/* Can the leader's side not win the trick about to be led?  True when in
 * every suit the leader holds, the top rank is held by the opponents alone
 * (the one holding it follows with it and wins: nothing outranks it, and an
 * equal copy played before it is his partner's), and partner cannot ruff
 * it.  rel[s] is lowered to that top rank for every suit the leader holds. */
static int leader_loses_trick(const Ctx *c, int L, uint8_t *rel)
{
    int P = (L + 2) & 3;
    int T = c->trump;
    for (int s = 0; s < GS(c); s++) {
        if (!c->len[L][s]) continue;
        uint32_t ours = c->pres[L][s] | c->pres[P][s];
        int t = hb(ours | c->pres[(L + 1) & 3][s] | c->pres[(L + 3) & 3][s]);
        if (ours >> t & 1) return 0;
        if (T >= 0 && s != T && c->len[P][s] == 0 && c->len[P][T] > 0) return 0;
    }
    for (int s = 0; s < GS(c); s++) {
        if (!c->len[L][s]) continue;
        int t = hb(c->pres[0][s] | c->pres[1][s] | c->pres[2][s] | c->pres[3][s]);
        if (rel[s] > t) rel[s] = (uint8_t)t;
    }
    return 1;
}

/* With no trumps in play, can the leader L's side, which needs every
 * remaining trick (r), not take them all?  Call a suit the side's when one
 * of its hands holds a copy of the suit's top rank, else (the opponents
 * holding every top copy) the opponents'.  True when the side's suits,
 * counted each by the longer of its two holdings, add up to fewer than r.
 *
 * Proof, for at most three suits (any number of copies).  To take every
 * trick the side wins, so leads, every trick.  Let the opponents play so:
 * on a lead of one of their suits the holder of a top copy follows with it
 * and wins (nothing outranks it, and no equal copy is the side's); when
 * void, discard no card that is their side's last top copy of one of their
 * suits, unless forced.  Then the side leads only its own suits, and an
 * opponents' suit turns the side's only by such a forced discard: their top
 * copies leave only when played, and the suit is never led.  Every trick
 * led in a suit takes a card of it from each of the side's hands holding
 * one, so each suit is led at most as often as its longer holding.  A
 * forced discard needs every card of the discarding hand to be the last
 * top copy of a different suit, none the suit led: with three suits, two
 * cards at most, at the last trick (harmless) or the one before.  So with
 * sum < r - 1 the side fails.  With sum = r - 1 it must lead the last trick
 * in a suit that was the opponents' (the suits led before are counted), so
 * one the opponent X unguarded on the trick before: X, void in the suit
 * led, holds one top copy of each other suit, t and u, and discards one;
 * the trick's winner leads his one card left, and it must be of the suit X
 * discarded.  Playing fourth, X sees that card and keeps its suit.  Playing
 * second, X discards before the side's third hand, the only one left who
 * could make the winner or his last card depend on the discard; he wins
 * only with a card of the suit led, and of his two cards, one of the suit
 * led and one of t or u, must play that one whatever X does (with two of
 * the suit led his last card is of a counted suit; void, he cannot win).
 * With four suits a hand of three cards may be squeezed: not proved.
 *
 * rel[s] is lowered to the top rank of each opponents' suit in which the
 * side holds cards: the side's suits count by length only (were one the
 * opponents', sum would only be smaller), and a suit only the opponents
 * hold is theirs in every position of the same lengths. */
static int leader_short_of_winners(const Ctx *c, int L, int r, uint8_t *rel)
{
    int P = (L + 2) & 3, o1 = (L + 1) & 3, o2 = (L + 3) & 3;
    int sum = 0;
    uint8_t nrel[MAXS];
    memcpy(nrel, rel, MAXS);
    for (int s = 0; s < GS(c); s++) {
        uint32_t ours = c->pres[L][s] | c->pres[P][s];
        int t = hb(ours | c->pres[o1][s] | c->pres[o2][s]);
        if (!ours) continue;
        if (ours >> t & 1) sum += c->len[L][s] > c->len[P][s] ? c->len[L][s] : c->len[P][s];
        else if (nrel[s] > t) nrel[s] = (uint8_t)t;
    }
    if (sum >= r) return 0;
    memcpy(rel, nrel, MAXS);
    return 1;
}

/* ------------------------------------------------------------------ */
/* Search                                                               */

/* Trump tricks surely taken, whoever leads, by the side holding every copy
 * of the top trump.  Its trumps of the ranks, from the top down, that the
 * other side does not hold ("top trumps") each win the trick they fall on:
 * whatever outranks them, or comes first at an equal rank, is the same
 * side's.  So the side takes at least as many tricks as one of its hands
 * holds top trumps; and two when each hand holds one and a hand has another
 * trump: until one of them has won a trick, that hand plays a lower trump on
 * the trick in which its partner must play his last (top) trump, and wins
 * with a top trump when it must play a trump first.  With the other side
 * void, every trump is a top trump and no rank matters.  *side: 0 NS, 1 EW;
 * the count stops at `want`, which it reaches with rel[T] lowered to the
 * lowest rank it used. */
static int top_trump_tricks(const Ctx *c, int wantNS, int wantEW, int *side, uint8_t *rel)
{
    int T = c->trump;
    uint32_t all = c->pres[0][T] | c->pres[1][T] | c->pres[2][T] | c->pres[3][T];
    if (!all) return 0;
    int tr = hb(all);
    int nsc = (c->pres[0][T] | c->pres[2][T]) >> tr & 1;
    int ewc = (c->pres[1][T] | c->pres[3][T]) >> tr & 1;
    if (nsc && ewc) return 0;
    int y = nsc ? 0 : 1, a = y, b = y + 2;
    int want = y ? wantEW : wantNS;
    *side = y;
    int la = c->len[a][T], lb = c->len[b][T];
    if (c->len[a ^ 1][T] == 0 && c->len[b ^ 1][T] == 0) return la > lb ? la : lb;
    if ((la > lb ? la : lb) < want) return 0;       /* the count is at most that */
    /* the side's ranks above the other side's top trump, from the top */
    uint32_t ours = (c->pres[a][T] | c->pres[b][T]) & ~((2u << hb(c->pres[a ^ 1][T] | c->pres[b ^ 1][T])) - 1);
    int ta = 0, tb = 0, q = 0;
    while (ours && q < want) {
        int r = hb(ours);
        ours &= ~(1u << r);
        ta += CNT(c, a, T, r);
        tb += CNT(c, b, T, r);
        q = ta > tb ? ta : tb;
        if (q < 2 && ta && tb && (c->len[a][T] > 1 || c->len[b][T] > 1)) q = 2;
        if (q >= want && rel[T] > r) rel[T] = (uint8_t)r;
    }
    return q;
}

/* A trick for the side of hand H when the only trump above H's top one is a
 * single card in the hand P before H (H plays after P except in tricks H
 * leads), every copy of H's top rank is H's side's, H holds another trump
 * and is not on lead (h leads).  H plays a trump only when it must: then
 * its top one wins unless P has played his above it to the same trick, when
 * H plays its lower one and the top one is left the highest trump; H leads
 * only after its side has won a trick.  Returns the rank of H's top trump
 * (*side: 0 NS, 1 EW), or -1. */
static int guarded_second_trump(const Ctx *c, int h, int *side)
{
    int T = c->trump;
    uint32_t all = c->pres[0][T] | c->pres[1][T] | c->pres[2][T] | c->pres[3][T];
    int tr = hb(all);
    if (tr < 0) return -1;
    int P = -1;
    for (int j = 0; j < 4; j++)
        if (c->pres[j][T] >> tr & 1) { if (P >= 0 || (GC(c) > 1 && (c->dup[j][T] >> tr & 1))) return -1; P = j; }
    int r2 = hb(all & ~(1u << tr));
    int H = (P + 1) & 3;
    if (r2 < 0 || H == h || c->len[H][T] < 2 || !(c->pres[H][T] >> r2 & 1)) return -1;
    if ((c->pres[P][T] | c->pres[(P + 2) & 3][T]) >> r2 & 1) return -1;
    *side = H & 1;
    return r2;
}

/* At No Trump, tricks that hand hh, about to win the trick in progress and
 * lead the next, then cashes from the top: its cards at least as high as
 * every other hand's cards of a suit (as they are now: the trick in
 * progress only takes cards away) win when led.  `spent`: hh wins with its
 * top card of suit ls, which is not counted again.  Suits with the most
 * tricks first, until `want`; rel is lowered only once it is reached. */
static int cash_after_trick(const Ctx *c, int hh, int ls, int spent, int want, uint8_t *rel)
{
    int qs[MAXS], mos[MAXS], tp[MAXS], used[MAXS] = {0}, q = 0;
    for (int s = 0; s < GS(c); s++) {
        uint32_t mine = c->pres[hh][s], oth = c->pres[(hh + 1) & 3][s] | c->pres[(hh + 2) & 3][s] | c->pres[(hh + 3) & 3][s];
        qs[s] = tp[s] = 0;
        mos[s] = -1;
        if ((oth & ~mine) >= mine) continue;    /* no copy of the top rank: none */
        int mo = hb(oth);
        int n = 0;
        if (mo < 0) n = c->len[hh][s];
        else n = count_from(c, hh, s, mo);
        tp[s] = n;
        if (s == ls) { if (spent && n) n--; }
        else if (n >= c->len[(hh + 1) & 3][s] && n >= c->len[(hh + 2) & 3][s] && n >= c->len[(hh + 3) & 3][s])
            n = c->len[hh][s];      /* the rest win once the others are out */
        qs[s] = n;
        mos[s] = mo;
    }
    while (q < want) {
        int bs = -1;
        for (int s = 0; s < GS(c); s++)
            if (!used[s] && qs[s] && (bs < 0 || qs[s] > qs[bs])) bs = s;
        if (bs < 0) return q;
        used[bs] = 1;
        if (want - q < qs[bs]) qs[bs] = want - q;
        q += qs[bs];
    }
    for (int s = 0; s < GS(c); s++) {
        if (!used[s]) continue;
        /* in the suit led, hh's top card is spent on this trick */
        int t = top_rel(c, hh, s, mos[s], tp[s], qs[s] + (s == ls && spent));
        if (rel[s] > t) rel[s] = (uint8_t)t;
    }
    return q;
}

/* Tricks the side of the second hand h (to play at k == 1) surely takes:
 * the trick in progress when the side holds a card that wins it whatever
 * the leader's partner (third to play) does, then, at No Trump, what the
 * winner of that trick cashes.  Returns 0 when the trick is not sure.  When
 * the count reaches `want`, rel is lowered to the lowest rank it relies
 * on. */
static int second_hand_tricks(const Ctx *c, int h, int want, uint8_t *rel)
{
    int p3 = (h + 1) & 3, p4 = (h + 2) & 3;
    int T = c->trump;
    Move led = c->tc[c->ti][0];
    int ls = led.s;
    int ruff3 = T >= 0 && ls != T && c->len[p3][ls] == 0 && c->len[p3][T] > 0;
    int hh = -1, thr = -1, tthr = -1;
    unsigned thm = 15, tthm = 15;       /* RELH: the copies of thr, tthr relied on */
    int L = (h + 3) & 3;
    if (T >= 0 && ls != T) {
        /* a ruff by the second hand (at least as high as any trump of a
         * void third hand, which plays after it) or by the fourth (higher
         * than them); trump ranks matter only when the third can ruff, and
         * none at all otherwise, so a ruff is the first choice (with
         * trumps only the trick in progress is counted, whoever wins it) */
        int t3t = ruff3 ? hb(c->pres[p3][T]) : -1;
        if (c->len[h][ls] == 0 && c->len[h][T] > 0 && hb(c->pres[h][T]) >= t3t) {
            hh = h;
            if (ruff3) { tthr = hb(c->pres[h][T]); tthm = 1u << h; }
        } else if (c->len[p4][ls] == 0 && c->len[p4][T] > 0 && hb(c->pres[p4][T]) > t3t) {
            hh = p4;
            if (ruff3) { tthr = hb(c->pres[p4][T]); tthm = 1u << p4 | 1u << p3; }
        }
    }
    if (hh < 0 && !ruff3) {
        /* the side's top card of the led suit must outrank the led card; in
         * the second hand it wins against an equal copy of the third hand
         * (played later), in the fourth hand it must outrank the third's
         * cards.  A void second hand discards or ruffs: the third cannot
         * overruff, as it follows suit or has no trump. */
        int t3 = hb(c->pres[p3][ls]);
        int x2 = hb(c->pres[h][ls]), x4 = hb(c->pres[p4][ls]);
        if (x2 > led.r && x2 >= t3 && x2 >= x4) { hh = h; thr = x2; thm = 1u << h | 1u << L; }
        else if (x4 > led.r && x4 > t3) { hh = p4; thr = x4; if (T >= 0) thm = 1u << p4 | 1u << L | 1u << p3; }
    }
    if (hh < 0) return 0;
    int q = 1;
    if (q < want && T < 0) q += cash_after_trick(c, hh, ls, 1, want - 1, rel);
    if (q < want) return q;
    if (thr >= 0 && rel[ls] > thr) { rel[ls] = (uint8_t)thr; if (RELH) rel[4 + ls] = (uint8_t)thm; }
    if (tthr >= 0 && rel[T] > tthr) { rel[T] = (uint8_t)tthr; if (RELH) rel[4 + T] = (uint8_t)tthm; }
    return q;
}

/* The same for the third hand h (to play at k == 2), whose side takes the
 * trick in progress when the fourth hand cannot take it over from the card
 * winning it now if that is the leader's, or from a card of h that outranks
 * it. */
static int third_hand_tricks(const Ctx *c, int h, int want, uint8_t *rel)
{
    int p4 = (h + 1) & 3, L = (h + 2) & 3;
    int T = c->trump;
    Move w = c->tc[c->ti][c->wpos];
    int ls = c->tc[c->ti][0].s;
    int wh = (c->leader + c->wpos) & 3;
    int ruff4 = T >= 0 && ls != T && c->len[p4][ls] == 0 && c->len[p4][T] > 0;
    int t4 = hb(c->pres[p4][ls]), t4t = ruff4 ? hb(c->pres[p4][T]) : -1;
    int hh = -1, spent = 0, thr = -1, tthr = -1;
    unsigned thm = 15, tthm = 15;       /* RELH: the copies of thr, tthr relied on */
    if (w.s == ls) {
        /* a card of the led suit wins: the leader's, or h's top card if it
         * outranks it, unless the fourth hand outranks that or ruffs */
        int x = hb(c->pres[h][ls]);
        if (T >= 0 && ls != T && c->len[h][ls] == 0 && c->len[h][T] > 0
            && hb(c->pres[h][T]) >= t4t) {
            /* h ruffs, at least as high as the fourth's trumps; no rank
             * matters unless the fourth can ruff, so this comes first (with
             * trumps only the trick in progress is counted) */
            hh = h;
            if (ruff4) { tthr = hb(c->pres[h][T]); tthm = 1u << h; }
        }
        if (hh < 0 && !ruff4) {
            if (wh == L && t4 <= w.r) {
                /* its rank matters if it outranked the second's card or
                 * the fourth holds cards of the suit */
                hh = L;
                if (t4 >= 0 || c->tc[c->ti][1].s == ls) { thr = w.r; thm = 1u << L; }
            }
            else if (x > w.r && t4 <= x) { hh = h; spent = 1; thr = x; thm = 15 & ~(1u << p4); }
        }
    } else {
        /* the trick is ruffed; the fourth follows suit or overruffs */
        int x = c->len[h][ls] == 0 ? hb(c->pres[h][T]) : -1;
        if (wh == L && t4t <= w.r) { hh = L; tthr = w.r; }
        else if (x > w.r && t4t <= x) { hh = h; tthr = x; tthm = 1u << h | 1u << wh; }
    }
    if (hh < 0) return 0;
    int q = 1;
    if (q < want && T < 0) {
        /* the leader keeps the trick only if h has a card not outranking
         * his (seen from rank w.r up, given h's length) */
        int under = 1;
        if (hh == L && c->len[h][ls] > 0) {
            int above = count_from(c, h, ls, w.r + 1);
            under = above < c->len[h][ls];
            thr = w.r;
            thm = 1u << L;
        }
        if (under) q += cash_after_trick(c, hh, ls, spent, want - 1, rel);
    }
    if (q < want) return q;
    if (thr >= 0 && rel[ls] > thr) { rel[ls] = (uint8_t)thr; if (RELH) rel[4 + ls] = (uint8_t)thm; }
    if (tthr >= 0 && rel[T] > tthr) { rel[T] = (uint8_t)tthr; if (RELH) rel[4 + T] = (uint8_t)tthm; }
    return q;
}

/* The trick just completed (u) was won by outranking a card of the
 * winner's suit: the proof relies on the winner (see search).  With RELH
 * only on the winner's copy of its rank and those of the hands that played
 * its suit before it (see tt_store). */
#if RELH
static inline void rel_win(uint8_t *rel, const Undo *u)
{
    if (!u->done || u->wrs == 0xff) return;
    int s = u->wrs;
    if (rel[s] > u->wrr) {
        rel[s] = u->wrr;
        rel[4 + s] = (uint8_t)(u->wrm | u->wrp << 4);
    } else if (rel[s] == u->wrr) {
        rel[4 + s] |= (uint8_t)(u->wrm | u->wrp << 4);
    }
}

/* Hand h played m to the trick (c as before the move), and crel is the
 * region of that move: h's bit among the played cards' marks of suit m.s
 * (rel[4 + s] >> 4, see rel_win) becomes h's copy of the threshold rank,
 * unless h holds a copy of it in hand here (and its copy is not relied on
 * otherwise): see tt_store. */
static inline void rel_played(const Ctx *c, int h, Move m, uint8_t *crel)
{
    int s = m.s;
    unsigned b = crel[4 + s];
    if (!(b >> 4 >> h & 1)) return;
    b &= ~(0x10u << h);
    if (!(c->pres[h][s] >> crel[s] & 1)) b |= 1u << h;
    crel[4 + s] = (uint8_t)b;
}
#define REL_PLAYED(h, m, r) rel_played(c, h, m, r)
#define REL_WIN(r, u) rel_win(r, &(u))
#else
/* (the Bridge build: as written out before RELH, which it compiles to
 * fewer instructions) */
#define REL_WIN(r, u) if ((u).done && (u).wrs != 0xff && (r)[(u).wrs] > (u).wrr) (r)[(u).wrs] = (u).wrr
#define REL_PLAYED(h, m, r) ((void)0)
#endif

static int last_trick_ns(const Ctx *c, uint8_t *rel)
{
    Move w = {0, 0}, m[4];
    int wpos = 0;
    for (int i = 0; i < 4; i++) {
        int h = (c->leader + i) & 3;
        m[i].s = m[i].r = 0;
        for (int s = 0; s < GS(c); s++)
            if (c->pres[h][s]) { m[i].s = (uint8_t)s; m[i].r = (uint8_t)hb(c->pres[h][s]); break; }
        if (i == 0 || beats(c, m[i], w)) { w = m[i]; wpos = i; }
    }
    for (int j = 0; j < 4; j++)
        if (j != wpos && m[j].s == w.s) {
#if !RELH
            if (rel[w.s] > w.r) rel[w.s] = w.r;
#else
            /* as rel_win: with RELH the winner's copy of its rank and those
             * of the hands that played its suit before it */
            Undo u;
            u.done = 1;
            u.wrs = w.s;
            u.wrr = w.r;
            u.wrm = (uint8_t)(1u << ((c->leader + wpos) & 3));
            u.wrp = 0;      /* here the hands' only cards: their copies */
            for (int i = 0; i < wpos; i++)
                if (m[i].s == w.s) u.wrm |= (uint8_t)(1u << ((c->leader + i) & 3));
            rel_win(rel, &u);
#endif
            break;
        }
    return !(((c->leader + wpos) & 3) & 1);
}

/* rel as relying on nothing: R a suit (RELH: every copy) */
#if RELH
static inline void rel_reset(const Ctx *c, uint8_t *rel)
{
    memset(rel, GR(c), MAXS);
    memset(rel + 4, 0xf, 4);
}
#else
#define rel_reset(c, rel) memset(rel, GR(c), MAXS)
#endif

/* rel[s] = min(rel[s], crel[s]) for all MAXS suits at once: with values
 * below 128, a byte of (rel | 0x80) - crel keeps its top bit iff rel >= crel,
 * and borrows nothing from the next byte. */
_Static_assert(MAXS == sizeof(uint64_t) && MAXR < 128, "rel_min works on a 64-bit word");
static inline void rel_min(uint8_t *rel, const uint8_t *crel)
{
#if RELH && defined(__SSE2__)
    /* the lower threshold with its copies; at equal ones, both's copies:
     * bytes 0-3 the minimum, bytes 4-7 rel's copies where crel's
     * threshold is not lower, or'ed with crel's where it is not higher
     * (the byte masks of bytes 0-3 shifted up to 4-7) */
    __m128i a = _mm_loadl_epi64((const __m128i *)rel), b = _mm_loadl_epi64((const __m128i *)crel);
    __m128i mn = _mm_min_epu8(a, b);
    __m128i le = _mm_slli_epi64(_mm_cmpeq_epi8(mn, b), 32);     /* crel <= rel */
    __m128i ge = _mm_slli_epi64(_mm_cmpeq_epi8(mn, a), 32);     /* rel <= crel */
    __m128i hi = _mm_or_si128(_mm_and_si128(a, ge), _mm_and_si128(b, le));
    __m128i lo = _mm_set_epi32(0, 0, 0, -1);
    _mm_storel_epi64((__m128i *)rel, _mm_or_si128(_mm_and_si128(mn, lo), hi));
#elif RELH
    for (int s = 0; s < GEO_S; s++) {
        if (crel[s] < rel[s]) { rel[s] = crel[s]; rel[4 + s] = crel[4 + s]; }
        else if (crel[s] == rel[s]) rel[4 + s] |= crel[4 + s];
    }
#elif defined(__SSE2__) && GEO_C != 1
    /* a byte-wise unsigned minimum (SSE2) of the two 64-bit words (fewer
     * instructions in the Flower Bridge build, more in the Bridge one) */
    __m128i a = _mm_loadl_epi64((const __m128i *)rel), b = _mm_loadl_epi64((const __m128i *)crel);
    _mm_storel_epi64((__m128i *)rel, _mm_min_epu8(a, b));
#else
    const uint64_t H = 0x8080808080808080ULL;
    uint64_t a, b;
    memcpy(&a, rel, MAXS);
    memcpy(&b, crel, MAXS);
    uint64_t m = ((((a | H) - b) & H) >> 7) * 0xff;
    a = (b & m) | (a & ~m);
    memcpy(rel, &a, MAXS);
#endif
}

/* The fourth hand h, holding many cards, looks his moves other than the one
 * tried first (first, in its group) up in the table (the positions they
 * reach start the next trick) before searching that one: when one of them
 * is stored as a win for h's side, it is taken at once, with that entry's
 * thresholds (and the trick winner's rank, as in search), instead of the
 * search of first's subtree.  At the first tricks a subtree costs far more
 * than the look-ups, and first's own position is looked up by its search
 * anyway.  A probe takes the first entry that decides, without looking
 * for a wider one (as many trick nodes, fewer instructions).  The moves
 * are generated here, as the last hand's first move mostly cuts off
 * without them.  Returns 1 when it found one. */
static int probe_cut(Ctx *c, int h, Move first, int target, uint8_t *rel)
{
    int maxing = !(h & 1);
    Move mv[MAXMOVES];
    uint8_t top[MAXMOVES];
    int n = gen_moves(c, h, mv, top);
    for (int i = 0; i < n; i++) {
        if (mv[i].s == first.s && mv[i].r <= first.r && first.r <= top[i]) continue;
        Undo u;
        play(c, h, 3, mv[i], &u);
        int r = c->hlen[c->leader], need = target - c->ns, v = -1;
        uint8_t crel[MAXS];
        if (need > 0 && need <= r && r > TT_MIN_TRICKS) {
            PosKey pk;
            const Entry *hint;
            make_key_dist(c, c->leader, &pk);
            make_key_codes(c, &pk);
            v = tt_lookup(c, &pk, need, 0, crel, &hint);
        }
        unplay(c, h, mv[i], &u);
        if (v == maxing) {
            memcpy(rel, crel, MAXS);
            REL_WIN(rel, u);   /* done: always, as h plays last */
            c->killer[c->ti][3] = mv[i];
            return 1;
        }
    }
    return 0;
}

/* Every STOP_EVERY + 1 trick nodes a search looks whether it is to stop:
 * Solver.cancel() from another thread, or, on the main thread, every
 * POLL_MS, a signal whose Python handler raises (Ctrl-C: KeyboardInterrupt),
 * found with the GIL taken back for that moment (PyErr_CheckSignals runs the
 * handlers; a search that never looked would take Ctrl-C only once it
 * ended, minutes with a small table).  It then returns at once to the
 * call's RUN_SEARCH by longjmp: nothing is left half done (a trick start,
 * before any look-up or store), the position is loaded afresh by the next
 * call, and every entry stored is a finished proof. */
#define STOP_EVERY 1023
#define POLL_MS 50
#ifdef CLOCK_MONOTONIC_COARSE
#define STOP_CLOCK CLOCK_MONOTONIC_COARSE
#else
#define STOP_CLOCK CLOCK_MONOTONIC
#endif
static inline long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(STOP_CLOCK, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static __attribute__((noinline, cold)) void stop_check(Ctx *c)
{
    if (__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
        c->stopped = 2;
        longjmp(c->jb, 1);
    }
    if (!c->poll) return;
    long long now = now_ms();
    if (now < c->next_poll) return;
    c->next_poll = now + POLL_MS;
    PyEval_RestoreThread(c->ts);
    int raised = PyErr_CheckSignals() < 0;
    c->ts = PyEval_SaveThread();
    if (raised) {
        c->stopped = 1;
        longjmp(c->jb, 1);
    }
}

/* What the table says of the trick in progress once it is played out, every
 * hand trying each of its moves for its side (a minimax over the trick's
 * cards, one move a group): 2 when North-South then reach the target, 0 when
 * they do not, 1 when the table does not tell.  (For root_leads: at a
 * trick's end the next position is looked up, never searched.) */
static int trick_verdict(Ctx *c, int target)
{
    if (c->k == 0) {
        int r = c->hlen[c->leader], need = target - c->ns;
        if (need <= 0) return 2;
        if (need > r) return 0;
        if (r <= TT_MIN_TRICKS) return 1;
        PosKey pk;
        const Entry *hint;
        uint8_t crel[MAXS];
        make_key_dist(c, c->leader, &pk);
        make_key_codes(c, &pk);
        int v = tt_lookup(c, &pk, need, 0, crel, &hint);
        return v < 0 ? 1 : 2 * v;
    }
    int k = c->k, h = (c->leader + k) & 3, maxing = !(h & 1);
    Move mv[MAXMOVES];
    uint8_t top[MAXMOVES];
    int n = gen_moves(c, h, mv, top);
    int best = maxing ? 0 : 2;
    for (int i = 0; i < n; i++) {
        Undo u;
        play(c, h, k, mv[i], &u);
        int v = trick_verdict(c, target);
        unplay(c, h, mv[i], &u);
        if (maxing ? v > best : v < best) best = v;
        if (best == (maxing ? 2 : 0)) break;
    }
    return best;
}

/* The leads of the search's first trick (its root, from ROOT_LEADS_MIN
 * tricks left), after order_moves (ob: its index of the best lead,
 * exchanged with the first): a lead the
 * table, one trick ahead (trick_verdict), shows to reach the leader's goal
 * is tried first, one it shows to fail last, the others in their order;
 * nothing is looked at when the best lead already shows to reach it.  A
 * root lead tried first that fails costs its whole refutation: in a
 * fifty-first session's count, failed first leads at nodes that then cut
 * off held a third of the trick nodes (counted within each other), most
 * of them within a few tricks of the root.  Returns the new index for
 * sort_rest. */
static int root_leads(Ctx *c, int h, Move *mv, uint8_t *top, int *sc, int n, int ob, int target)
{
    int want = !(h & 1) ? 2 : 0;
    Undo u;
    play(c, h, 0, mv[0], &u);
    int v0 = trick_verdict(c, target);
    unplay(c, h, mv[0], &u);
    if (v0 == want) return ob;
    /* the moves as order_moves scored them, the best back in its place */
    if (ob) exchange_moves(sc, mv, top, ob);
    int b = 0;
    for (int i = 0; i < n; i++) {
        int v = v0;
        if (i != ob) {
            play(c, h, 0, mv[i], &u);
            v = trick_verdict(c, target);
            unplay(c, h, mv[i], &u);
        }
        if (v != 1) sc[i] += v == want ? ROOT_LEAD_BONUS : -ROOT_LEAD_BONUS;
    }
    for (int i = 1; i < n; i++)
        if (sc[i] > sc[b]) b = i;
    if (b) exchange_moves(sc, mv, top, b);
    return b;
}

/* Can North-South take at least `target` tricks (counted since the root)?
 * rel receives, per suit, the rank threshold the answer depends on (R: none). */
static int search(Ctx *c, int target, uint8_t *rel)
{
    c->nodes++;
    int S = GS(c);
    int k = c->k;
    int h = (c->leader + k) & 3;
    rel_reset(c, rel);                  /* every caller's rel holds MAXS */
    PosKey pk;          /* made and used at trick starts only */
    const Entry *hint = NULL;
    int need = 0;
    if (k == 0) {
        if (__builtin_expect(!(++c->st_tricks & STOP_EVERY), 0)) stop_check(c);
        int r = c->hlen[h];
        need = target - c->ns;              /* North-South tricks still needed */
        if (need <= 0) return 1;
        if (need > r) return 0;
        if (r == 1) return last_trick_ns(c, rel) >= need;
        int T = c->trump;
        if (r > TT_MIN_TRICKS) {
            /* the key's hash first, so the table's memory is on its way
             * while the quick tricks are counted; its suit codes only when
             * those do not decide */
            make_key_dist(c, h, &pk);
            __builtin_prefetch(&c->tt->summary[pk.hbase & (c->tt->nh - 1)]);
        }
        uint8_t qrel[MAXS], qrel2[MAXS];
        int want = !(h & 1) ? need : r - need + 1;
        /* The leader's side's sure tricks, counted four ways: from the
         * leader's top cards, from his partner's after leading low to an
         * entry (or both hands' together), or a ruff by the partner.  Where
         * several reach `want` they rely on different cards: keep the proof
         * with the highest thresholds, the widest region for the table. */
        int wide = -1, entry = -1, ethr = 0;
        unsigned ways = sure_ways(c, h, want);
        if ((ways & 6) && (entry = partner_entry(c, h, &ethr)) < 0) ways &= ~6u;   /* for ways 1 and 2 */
        for (; ways && wide < S * GR(c); ways &= ways - 1) {
            int way = __builtin_ctz(ways);
            rel_reset(c, qrel2);
            int q = way == 0 ? quick_tricks(c, h, want, 0, qrel2)
                  : way == 1 ? partner_quick_tricks(c, h, want, entry, ethr, qrel2)
                  : way == 2 ? joint_quick_tricks(c, h, want, entry, ethr, qrel2)
                  : partner_ruff(c, h, qrel2);
            if (q < want) continue;
            int w = 0;
            for (int s = 0; s < S; s++) w += qrel2[s];
            if (w > wide) { wide = w; memcpy(qrel, qrel2, MAXS); }
        }
        if (wide >= 0) {
            memcpy(rel, qrel, MAXS);
            c->st_qt++;
            return !(h & 1);
        }
        /* the leader's side needs every trick but cannot win this one */
        if (!(h & 1) ? need == r : need == 1) {
            if (leader_loses_trick(c, h, rel)) {
                c->st_qt++;
                return h & 1;
            }
            /* proved for three suits at most (see there) */
            if (GS(c) <= 3 && trumps_out(c) && leader_short_of_winners(c, h, r, rel)) {
                c->st_qt++;
                return h & 1;
            }
        }
        if (T >= 0) {
            /* Every trick in which a hand plays a trump is won by a trump:
             * the other side takes it only with a trump of its own, one per
             * trick.  So a side takes at least as many tricks as one of its
             * hands holds trumps beyond the other side's trumps together;
             * only suit lengths matter. */
            int lns = c->len[0][T] + c->len[2][T], lew = c->len[1][T] + c->len[3][T];
            int mns = c->len[0][T] > c->len[2][T] ? c->len[0][T] : c->len[2][T];
            int mew = c->len[1][T] > c->len[3][T] ? c->len[1][T] : c->len[3][T];
            if (mns - lew >= need) return 1;
            if (mew - lns > r - need) return 0;
            /* Likewise a hand's trumps at or above some rank t each need,
             * in their tricks, a trump of the other side's at or above t
             * (an equal one only if played first): the side takes at
             * least as many tricks as the first count exceeds the second,
             * for the highest t where that is enough; rel[T] is lowered to
             * t (the holders at or above it tell both counts).  Not where
             * the hand's every trump is needed: there the search's own
             * proofs cover more positions (measured: fewer trick nodes
             * without it).  A hand counts only with more trumps than
             * its side needs tricks (the longest of each side tells). */
            if ((mns > need && lew) || (mew > r - need + 1 && lns)) {
                for (int b = 0; b < 4; b++) {
                    int w = b & 1 ? r - need + 1 : need, lb = c->len[b][T];
                    if (lb <= w || !(b & 1 ? lns : lew)) continue;
                    /* no lower t once the hand's whole length minus the
                     * other side's count falls short of w (that count only
                     * grows as t falls) */
                    int cb = 0;
                    for (uint32_t m = c->pres[b][T]; m; ) {
                        int t = hb(m);
                        m &= ~(1u << t);
                        cb += CNT(c, b, T, t);
                        int cx = count_from(c, (b + 1) & 3, T, t) + count_from(c, (b + 3) & 3, T, t);
                        if (cb - cx >= w) {
                            rel[T] = (uint8_t)t;
                            if (RELH) {
                                /* b's copy of t; the opponents' too
                                 * unless one of them holds the other
                                 * copy (counted in cx): elsewhere it
                                 * would only lower cx */
                                int o1 = (b + 1) & 3, o2 = (b + 3) & 3;
                                rel[4 + T] = (uint8_t)(1u << b);
                                if (!((c->pres[o1][T] | c->pres[o2][T]) >> t & 1))
                                    rel[4 + T] |= (uint8_t)(1u << o1 | 1u << o2);
                            }
                            return !(b & 1);
                        }
                        if (lb - cx < w) break;
                    }
                }
            }
            int side = 0;
            int tq = top_trump_tricks(c, need, r - need + 1, &side, rel);
            if (side ? tq > r - need : tq >= need) return !side;
            /* one trick decides only when a side needs all the rest */
            if (GC(c) > 1 && (need <= 1 || need == r)) {
                /* A hand holding a copy of the top trump rank and another
                 * trump takes a trick: it plays that copy on the first
                 * trick it plays a trump to, unless an opponent's copy is
                 * on that trick already, when it plays the other trump and
                 * its copy is left the highest trump, with no equal in the
                 * opponents' hands -- so long as they held one copy at
                 * most (with three copies or more, two opponents' copies
                 * would leave one to equal it, played first). */
                int y = need == r;      /* the side that gets a trick: 1 EW */
                int tr = hb(c->pres[0][T] | c->pres[1][T] | c->pres[2][T] | c->pres[3][T]);
                for (int b = y; b < 4; b += 2)
                    if (c->len[b][T] > 1 && (c->pres[b][T] >> tr & 1)
                        && (GC(c) <= 2 || CNT(c, (b + 1) & 3, T, tr) + CNT(c, (b + 3) & 3, T, tr) <= 1)) {
                        if (rel[T] > tr) rel[T] = (uint8_t)tr;
                        c->st_qt++;
                        return !y;
                    }
            }
            int kr = need <= 1 || need == r ? guarded_second_trump(c, h, &side) : -1;
            if (kr >= 0 && (side ? need == r : need <= 1)) {
                rel[T] = (uint8_t)kr;
                return !side;
            }
        }
        if (r > TT_MIN_TRICKS) {
            make_key_codes(c, &pk);
            int res = tt_lookup(c, &pk, need, TT_WIDER, rel, &hint);
            if (res >= 0) return res;
        }
    } else if (k < 3) {
        need = target - c->ns;
        int want = !(h & 1) ? need : c->hlen[h] - need + 1;
        /* with trumps only the trick in progress is counted */
        if (want <= 1 || c->trump < 0) {
            uint8_t qrel[MAXS];
            rel_reset(c, qrel);
            int q = k == 1 ? second_hand_tricks(c, h, want, qrel) : third_hand_tricks(c, h, want, qrel);
            if (q >= want) {
                memcpy(rel, qrel, MAXS);
                c->st_qt++;
                return !(h & 1);
            }
        }
    }
    int maxing = !(h & 1);
    uint8_t crel[MAXS];
    /* The last hand's first move, and the second hand's when he follows
     * suit, is tried before the others are generated (v0: its result, crel
     * its region); the loop below takes it up as mv[0] when it does not cut
     * off.  At the first tricks the table is probed for the last hand's
     * other moves before his first is searched (probe_cut). */
    int v0 = -1;
    Move m;
    if (k == 3 ? (m = last_hand_first(c, h), 1) : k == 1 && (second_hand_first(c, h, &m) || (m = void_second_first(c, h), 1))) {
        if (k == 3 && c->hlen[h] >= ETC_MIN_CARDS && probe_cut(c, h, m, target, rel)) return maxing;
        Undo u;
        play(c, h, k, m, &u);
        v0 = search(c, target, crel);
        unplay(c, h, m, &u);
        REL_WIN(crel, u);
        REL_PLAYED(h, m, crel);
        if (v0 == maxing) {
            memcpy(rel, crel, MAXS);        /* see the cut-off below */
            return v0;
        }
    }
    Move mv[MAXMOVES];
    uint8_t top[MAXMOVES];
    int sc[MAXMOVES];
    int n = gen_moves(c, h, mv, top);
    int ob = n > 1 ? order_moves(c, h, mv, top, n, hint, sc) : 0;
    if (k == 0 && c->ti == 0 && n > 1 && c->hlen[h] >= ROOT_LEADS_MIN) ob = root_leads(c, h, mv, top, sc, n, ob, target);
    int result = !maxing;
    int best = -1;
    /* skip[s]: groups of suit s wholly below this rank are proven to fail
     * by an earlier sibling (see below) */
    uint8_t skip[MAXS] = {0};
#if RELH
    /* per suit: the threshold at which h's own copy was taken out of its
     * move's region (0xff: none), and the other copy's holder */
    uint8_t own_t[MAXS], own_x[MAXS];
    memset(own_t, 0xff, sizeof own_t);
#endif
    /* Each move's result v (crel: its region) is in hand at the top of the
     * loop, the next move searched at its bottom, past the groups proven to
     * fail; mv[0] is the move tried early, if any (v0).  n >= 1: the hand
     * holds a card. */
    int v = v0;
    if (v < 0) {
        Undo u;
        play(c, h, k, mv[0], &u);
        v = search(c, target, crel);
        unplay(c, h, mv[0], &u);
        REL_WIN(crel, u);
        REL_PLAYED(h, mv[0], crel);
    }
    for (int i = 0;;) {
        int s = mv[i].s;
        if (v == maxing) {
            /* One move is enough for a cut-off, and the one played may lie
             * below crel[s] even when the rest of its group does not: in a
             * position matching at crel, h holds as many cards of the suit
             * below crel[s] as here (same length, same cards above), and
             * playing any of them instead reaches a position that matches
             * the child's proof (the trick's winner, if it is compared with
             * this card, is at or above crel[s] by the winner rule). */
            memcpy(rel, crel, MAXS);
            result = v;
            best = i;
            c->killer[c->ti][k] = mv[i];
            break;
        }
        /* Every move must fail: the proof for the group's representative
         * carries over to the other cards of the group (a matching position
         * may play one of them that lies above crel[s]) only if the whole
         * group is relevant.  But for a group headed by h's copy of the
         * winning card's rank (gen_moves), where the region's threshold is
         * that rank and h's copy is not relied on: the region then takes
         * that copy as a low card wherever it lies, in h's hand, played by
         * h after the winning card, or held by another hand not relied on,
         * so that h's every card of the group, and below it, reaches a
         * position that matches the proof. */
        if (crel[s] <= top[i] && crel[s] > mv[i].r
            && !(RELH && crel[s] == top[i] && !(crel[4 + s] >> h & 1) && wtop_is(c, s, top[i]))) {
            crel[s] = mv[i].r;
            if (RELH) crel[4 + s] = 0xf;
        } else if (RELH && crel[s] == mv[i].r && top[i] > mv[i].r) {
            /* the group's lowest card is h's copy at the threshold (a group
             * of one card carries over to nothing): every copy, as where a
             * hand not in H holds the other copy of the threshold rank, h's
             * copy and the group's higher cards are no longer one group (that
             * hand may play its copy first, which h's copy then does not
             * beat), so the proof for the lowest card would not carry over
             * to the others */
            crel[4 + s] = 0xf;
        }
        /* The move failed, and its proof never looked at its own suit below
         * crel[s], where the whole group lies: playing any other group of
         * the suit wholly below that rank reaches a position that matches
         * the same proof, so it fails too (DDS does the same). */
        if (top[i] < crel[s] && crel[s] > skip[s]) skip[s] = crel[s];
#if RELH
        /* the move of h's copy of the threshold rank (a group of its own,
         * X holding the other copy) where h holds a lower card: merged
         * without h's copy, and X's put in at the end if h's is not there
         * (see tt_store) */
        if (crel[s] == mv[i].r && top[i] == mv[i].r && (crel[4 + s] >> h & 1) && !(c->dup[h][s] >> mv[i].r & 1)
            && (c->pres[h][s] & ((1u << mv[i].r) - 1))) {
            int x = -1;
            for (int j = 0; j < 4; j++) if (j != h && (c->pres[j][s] >> mv[i].r & 1)) x = j;
            if (x >= 0) {
                crel[4 + s] &= (uint8_t)~(1u << h);
                if (mv[i].r < own_t[s]) { own_t[s] = mv[i].r; own_x[s] = (uint8_t)x; }
            }
        }
#endif
        rel_min(rel, crel);
        if (i == 0 && n > 2) sort_rest(sc, mv, top, n, ob);
        do i++; while (i < n && top[i] < skip[mv[i].s]);
        if (i >= n) break;
        Undo u;
        play(c, h, k, mv[i], &u);
        v = search(c, target, crel);
        unplay(c, h, mv[i], &u);
        REL_WIN(crel, u);
        REL_PLAYED(h, mv[i], crel);
    }
#if RELH
    if (best < 0)
        for (int s = 0; s < S; s++)
            if (rel[s] == own_t[s] && !(rel[4 + s] >> h & 1)) rel[4 + s] |= (uint8_t)(1u << own_x[s]);
#endif
    if (k == 0 && c->hlen[h] > TT_MIN_TRICKS) {
        int bs = 0xff, bg = 0xff;
        if (best >= 0) {
            /* remember the lead that produced the cut-off, as the index of
             * its group within the suit from the top (valid in matching
             * positions): the suit's groups are disjoint runs of ranks */
            bs = mv[best].s;
            bg = 0;
            for (int j = 0; j < n; j++) bg += mv[j].s == bs && top[j] > top[best];
        }
        tt_store(c, &pk, rel, result, result ? need : need - 1, bs, bg);
    }
    return result;
}

/* Exact North-South tricks (counted since the root) in [lo, hi], by a
 * sequence of null-window searches starting from a guess. */
static int mtd(Ctx *c, int lo, int hi, int guess)
{
    uint8_t rel[MAXS];
    while (lo < hi) {
        int t = guess;
        if (t <= lo) t = lo + 1;
        if (t > hi) t = hi;
        c->st_roots++;
        if (search(c, t, rel)) { lo = t; guess = t + 1; }
        else { hi = t - 1; guess = t - 1; }
    }
    return lo;
}

static inline int to_move(const Ctx *c) { return (c->leader + c->k) & 3; }

/* Tricks still to be played, the one in progress included. */
static inline int tricks_left(const Ctx *c) { return c->hlen[to_move(c)]; }

/* A first guess for the MTD loop: North-South tricks from here, estimated
 * from the sides' shares of high-card points (4 for a suit's top rank down
 * to 1 for its fourth), their trump lengths and who leads the trick, with
 * weights fitted on solved random deals (Bridge: 0.24 tricks a point, 0.5
 * a trump, 0.25 for the lead; Flower Bridge alike).  Searches at targets
 * far from the value are cheap, but each one near it costs about as much
 * as the search at the value, so starting there (or one above: the loop
 * then also needs just two) saves the one or two extra searches that
 * starting at half the tricks costs most deals.  nt >= 0: the No Trump
 * value with the same leader, known (a DD table solves No Trump first);
 * a suit contract's value is then estimated from it, with less weight on
 * the points and a little more on the trumps (weights fitted on 150
 * Bridge and 40 Flower Bridge tables, other deals than the benchmarks',
 * where the guess is then off by fewer tricks).  The estimate is rounded
 * half a trick up: a guess one above the value costs two searches, one
 * below it three (measured: up to 3 % fewer trick nodes a DD table set).  */
static int estimate_ns(const Ctx *c, int nt)
{
    int r = tricks_left(c), pts[2] = {0, 0}, tl[2] = {0, 0};
    for (int h = 0; h < 4; h++)
        for (int s = 0; s < GS(c); s++) {
            for (int rk = GR(c) > 4 ? GR(c) - 4 : 0; rk < GR(c); rk++)
                pts[h & 1] += (rk - GR(c) + 5) * CNT(c, h, s, rk);
            if (s == c->trump) tl[h & 1] += c->len[h][s];
        }
    double share = pts[0] + pts[1] ? 0.75 * r * (pts[0] - pts[1]) / (pts[0] + pts[1]) : 0.0;
    double est;
    if (nt >= 0) est = r / 2.0 + 0.4 * share + 0.55 * (tl[0] - tl[1]) + 0.35 * (nt - r / 2.0);
    else est = r / 2.0 + 0.25 * (c->leader & 1 ? -1 : 1) + 0.5 * (tl[0] - tl[1]) + share;
    int g = (int)(est + 1.0);
    return g < 0 ? 0 : g > r ? r : g;
}


/* ------------------------------------------------------------------ */
/* Entry points                                                         */

/* North-South tricks from the loaded position, told exactly where they lie
 * in [lo, hi] (clamped to the tricks left), else the nearer end: a window of
 * one trick is one null-window search ("do North-South take at least hi?"),
 * far cheaper than the value where that fails at once; guess < 0: estimated. */
int GEO_FN(geo_tricks)(Ctx *c, int guess, int lo, int hi)
{
    int r = tricks_left(c);
    if (hi < 0 || hi > r) hi = r;
    if (lo < 0) lo = 0;
    if (lo > hi) lo = hi;
    if (guess < 0) guess = estimate_ns(c, -1);
    return mtd(c, lo, hi, guess);
}

/* Root values: for every legal group, NS tricks (since the root). */
int GEO_FN(geo_values)(Ctx *c, Move *mv, uint8_t *top, int *val, int *nout)
{
    int h = to_move(c);
    int n = gen_moves(c, h, mv, top);
    int sc[MAXMOVES];
    sort_rest(sc, mv, top, n, order_moves(c, h, mv, top, n, NULL, sc));
    int guess = -1;
    for (int i = 0; i < n; i++) {
        Undo u;
        play(c, h, c->k, mv[i], &u);
        int lo = c->ns, hi = c->ns + (c->k == 0 && c->hlen[c->leader] == 0 ? 0 : tricks_left(c));
        if (guess < 0) guess = lo + estimate_ns(c, -1);
        val[i] = mtd(c, lo, hi, guess);
        guess = val[i];
        unplay(c, h, mv[i], &u);
    }
    *nout = n;
    return h;
}

/* The DD table of the loaded deal (all hands of equal size): res[d][L] =
 * North-South tricks in denomination d (suits, then No Trump) with L on
 * lead, for the nd denominations den[] in that order (the others are left
 * alone).  fresh: a new deal, so the table starts empty; otherwise the
 * entries of this deal's earlier denominations are kept.  nt_east: East's
 * No Trump value when known from elsewhere (another thread solving the
 * same deal), -1 if not. */
void GEO_FN(geo_table)(Ctx *c, const int *den, int nd, int fresh, int nt_east, int res[MAXS + 1][4])
{
    int S = GS(c);
    int r = c->hlen[0];
    /* A solver is reused deal after deal: the last deal's entries would
     * almost never match, only lengthen the lists and fill the table. */
    if (fresh && c->tt->dused) tt_clear(c->tt);
    for (int i = 0; i < nd; i++) {
        /* No Trump first when it is asked for: the suit contracts'
         * positions with no trump left are No Trump ones and find its
         * entries (see make_key) */
        int d = den[i];
        set_trump(c, d == S ? -1 : d);
        /* Other entries of the previous denominations serve none of this
         * one's positions: once the table is half full, start it with an
         * empty table rather than have it fill up and be cleared in the
         * middle of a search. */
        if ((i > 0 || !fresh) && (c->tt->bused > c->tt->bcap / 2 || c->tt->dused > c->tt->dcap / 2))
            tt_clear(c->tt);
        for (int j = 0; j < 4; j++) {
            /* order E, S, W, N so consecutive leaders are of alternate sides */
            int L = (j + 1) & 3;
            c->leader = L; c->k = 0; c->ns = 0; c->ti = 0;
            /* First guesses (an MTD loop needs two searches when its guess
             * is the value or one above): the estimate, in a suit contract
             * from East's No Trump value when known; for the partner of an
             * earlier leader, his value; for South after East, East's
             * value plus one, as a side rarely takes fewer tricks for
             * having the lead. */
            int guess = j == 0 ? estimate_ns(c, d == S ? -1 : nt_east) : j == 1 ? res[d][1] + 1 : res[d][(L + 2) & 3];
            res[d][L] = mtd(c, 0, r, guess > r ? r : guess);
        }
        if (d == S) nt_east = res[S][1];
    }
}

/* North-South tricks in denomination d (a suit, or S: No Trump) with L on
 * lead, from the loaded deal: one task of a DD table whose leaders are
 * shared among threads searching one table (Solver.share).  guess < 0: the
 * estimate, from East's No Trump value nt_east where known (>= 0). */
int GEO_FN(geo_leader)(Ctx *c, int d, int L, int guess, int nt_east)
{
    int S = GS(c), r = c->hlen[0];
    set_trump(c, d == S ? -1 : d);
    c->leader = L; c->k = 0; c->ns = 0; c->ti = 0;
    if (guess < 0) guess = estimate_ns(c, d == S ? -1 : nt_east);
    return mtd(c, 0, r, guess > r ? r : guess);
}

#ifndef GEO_SPECIAL

/* ------------------------------------------------------------------ */
/* Python object                                                        */

/* The core's own errors, so that the Python face tells them from what else a
 * call may raise (a signal handler's exception, run mid-search: stop_check):
 * InputError (a ValueError) for a position or argument it cannot take,
 * BusyError (a RuntimeError) for a solver already searching, Cancelled for
 * a search stopped by cancel().  Made once (see PyInit__core). */
static PyObject *InputError, *BusyError, *CancelledError;

/* A geometry's search, compiled for it (see GEO_S) or for any. */
typedef struct {
    int S, R, C;
    int (*tricks)(Ctx *, int, int, int);
    int (*values)(Ctx *, Move *, uint8_t *, int *, int *);
    void (*table)(Ctx *, const int *, int, int, int, int (*)[4]);
    int (*leader)(Ctx *, int, int, int, int);
} Geo;

#define GEO_DECLARE(name) \
    int geo_tricks_##name(Ctx *, int, int, int); \
    int geo_values_##name(Ctx *, Move *, uint8_t *, int *, int *); \
    void geo_table_##name(Ctx *, const int *, int, int, int, int (*)[4]); \
    int geo_leader_##name(Ctx *, int, int, int, int);
GEO_DECLARE(bridge)
GEO_DECLARE(flower)

static const Geo geos[] = {
    {4, 13, 1, geo_tricks_bridge, geo_values_bridge, geo_table_bridge, geo_leader_bridge},
    {3, 10, 2, geo_tricks_flower, geo_values_flower, geo_table_flower, geo_leader_flower},
    {0, 0, 0, geo_tricks_any, geo_values_any, geo_table_any, geo_leader_any},      /* any other */
};
#define GEO_CALL(self, fn) ((self)->geo->fn)

typedef struct {
    PyObject_HEAD
    Ctx *ctx;
    TT tt;
    size_t mem_bytes;
    int busy;
    const Geo *geo;
    PyObject *owner;    /* the Solver whose table this one searches (share) */
} SolverObject;

static void Solver_dealloc(SolverObject *self)
{
    Py_CLEAR(self->owner);

    tt_free(&self->tt);
    free(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Solver_init(SolverObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"suits", "ranks", "copies", "memory_mb", "specialized", NULL};
    int S = 3, R = 10, C = 2, special = 1;
    double mem = 128.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|iiidp", kwlist, &S, &R, &C, &mem, &special)) return -1;
    if (S < 1 || S > MAXS || R < 1 || R > MAXR || C < 1 || C > MAXC) {
        PyErr_Format(InputError, "unsupported geometry: %d suits x %d ranks x %d copies", S, R, C);
        return -1;
    }
    /* NaN, an infinity or a size beyond the Python face's bound would make the
     * conversion to bytes below undefined (NaN came out 2**63, an infinity 0) */
    if (!(mem >= 1.0 && mem <= 65536.0)) { PyErr_SetString(InputError, "memory_mb must be between 1 and 65536"); return -1; }
    /* a second __init__: not of a solver searching, or whose table others
     * share; one that shared another's table gets its own again */
    if (self->busy || self->tt.shared) { PyErr_SetString(BusyError, "Solver is in use (searching, or its table shared)"); return -1; }
    Py_CLEAR(self->owner);
    free(self->ctx);
    self->ctx = (Ctx *)calloc(1, sizeof(Ctx));
    if (!self->ctx) { PyErr_NoMemory(); goto fail; }
    Ctx *c = self->ctx;
    c->S = S; c->R = R; c->C = C;
    c->scap = SCACHE / S;
    /* the search compiled for this geometry, else (or when asked: the
     * tests compare the two) the one for any */
    self->geo = &geos[0];
    while (self->geo->S && !(special && self->geo->S == S && self->geo->R == R && self->geo->C == C)) self->geo++;
    init_codes(c);
    if (R * C * c->codebits > 128 || 4 * S * c->lenbits > 128) {
        PyErr_Format(InputError, "geometry %d x %d x %d too large for the position key", S, R, C);
        goto fail;
    }
    c->sb = R * C * c->codebits;
    c->kw = (S * c->sb + 127) / 128;
    /* the builds for one geometry take these as constants (GEO_SB, GEO_KW) */
    if (self->geo->S && c->codebits != (C == 1 ? 2 : 4)) {
        PyErr_SetString(PyExc_SystemError, "position code bits differ from the specialized build's");
        goto fail;
    }
    for (int s = 0; s < S; s++)
        for (int n = 0; n <= R * C; n++)
            put_field(c->nmask[s][n], s * c->sb, n ? ~(u128)0 << (128 - n * c->codebits) : 0);
    c->fc = 64 / S / c->codebits;
    if (c->fc > R * C) c->fc = R * C;
    for (int s = 0; s < S; s++)
        for (int n = 0; n <= R * C; n++) {
            int m = n < c->fc ? n : c->fc, fb = c->fc * c->codebits;
            c->fmask[s][n] = m ? (~0ULL << (64 - m * c->codebits)) >> (s * fb) : 0;
        }
    if ((S * R * C) / 4 > MAXT) { PyErr_SetString(InputError, "too many cards per hand"); goto fail; }
    self->mem_bytes = (size_t)(mem * 1024.0 * 1024.0);
    tt_free(&self->tt);
    self->busy = 0;
    return 0;
fail:
    /* no half-built solver: one whose __init__ failed is not initialised */
    free(self->ctx);
    self->ctx = NULL;
    tt_free(&self->tt);
    return -1;
}

/* Parse (hands, trump, leader, trick) into the context.  hands: bytes of
 * 4*S*R copy counts, hand-major then card index (suit*R + rank). */
static int load_position(SolverObject *self, PyObject *hands, int trump, int leader, PyObject *trick)
{
    Ctx *c = self->ctx;
    int S = c->S, R = c->R;
    Py_buffer buf;
    if (PyObject_GetBuffer(hands, &buf, PyBUF_SIMPLE) < 0) return -1;
    if (buf.len != 4 * S * R) {
        PyBuffer_Release(&buf);
        PyErr_SetString(InputError, "hands must hold 4 * suits * ranks counts");
        return -1;
    }
    const uint8_t *p = (const uint8_t *)buf.buf;
    memset(c->cnt, 0, sizeof(c->cnt));
    memset(c->pres, 0, sizeof(c->pres));
    memset(c->dup, 0, sizeof(c->dup));
    memset(c->len, 0, sizeof(c->len));
    memset(c->hlen, 0, sizeof(c->hlen));
    int tot[MAXS][MAXR];
    memset(tot, 0, sizeof(tot));
    for (int h = 0; h < 4; h++)
        for (int s = 0; s < S; s++)
            for (int r = 0; r < R; r++) {
                int v = p[(h * S + s) * R + r];
                c->cnt[h][s][r] = (uint8_t)v;
                if (v) c->pres[h][s] |= 1u << r;
                if (v > 1) c->dup[h][s] |= 1u << r;
                c->len[h][s] += v;
                c->hlen[h] += v;
                tot[s][r] += v;
            }
    PyBuffer_Release(&buf);
    for (int s = 0; s < S; s++) c->sver[s] = ++c->vclock;
    if (trump < -1 || trump >= S) { PyErr_SetString(InputError, "bad trump"); return -1; }
    if (leader < 0 || leader > 3) { PyErr_SetString(InputError, "bad leader"); return -1; }
    set_trump(c, trump);
    c->leader = leader;
    c->k = 0; c->ns = 0; c->ti = 0; c->wpos = 0;
    memset(c->killer, 0xff, sizeof(c->killer));
    PyObject *seq = PySequence_Fast(trick, "trick must be a sequence of card indices");
    if (!seq) return -1;
    Py_ssize_t nt = PySequence_Fast_GET_SIZE(seq);
    if (nt > 3) { Py_DECREF(seq); PyErr_SetString(InputError, "a trick in progress has at most 3 cards"); return -1; }
    for (Py_ssize_t i = 0; i < nt; i++) {
        long ci = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (ci == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        if (ci < 0 || ci >= S * R) { Py_DECREF(seq); PyErr_SetString(InputError, "bad card in trick"); return -1; }
        Move m = {(uint8_t)(ci / R), (uint8_t)(ci % R)};
        int h = (leader + (int)i) & 3;
        /* lay the card on the table as if played from the hand */
        if (c->cnt[h][m.s][m.r]++) c->dup[h][m.s] |= 1u << m.r;
        c->pres[h][m.s] |= 1u << m.r;
        c->len[h][m.s]++;
        c->hlen[h]++;
        tot[m.s][m.r]++;
        if (i > 0) {
            int ls = c->tc[0][0].s;
            if (m.s != ls && c->len[h][ls] > 0) {
                Py_DECREF(seq);
                PyErr_SetString(InputError, "card in trick does not follow suit");
                return -1;
            }
        }
        Undo u;
        play(c, h, c->k, m, &u);
    }
    Py_DECREF(seq);
    for (int s = 0; s < S; s++)
        for (int r = 0; r < R; r++)
            if (tot[s][r] > c->C) { PyErr_SetString(InputError, "more copies of a card than the deck holds"); return -1; }
    c->lenkey = 0;
    for (int h = 0; h < 4; h++)
        for (int s = 0; s < S; s++) c->lenkey += (u128)c->len[h][s] * c->lenunit[h][s];
    int tm = to_move(c);
    int n = c->hlen[tm];
    for (int i = 0; i < 4; i++) {
        int h = (leader + i) & 3;
        int want = i < c->k ? n - 1 : n;
        if (c->hlen[h] != want) { PyErr_SetString(InputError, "hand sizes do not fit the trick in progress"); return -1; }
    }
    if (n < 1) { PyErr_SetString(InputError, "no cards left to play"); return -1; }
    if (n > MAXT) { PyErr_SetString(InputError, "too many cards per hand"); return -1; }
    return 0;
}

static int ensure_tt(SolverObject *self)
{
    if (self->owner) {
        SolverObject *o = (SolverObject *)self->owner;
        if (!o->tt.head) {
            if (tt_init(&o->tt, o->mem_bytes, o->ctx->kw) < 0) { PyErr_NoMemory(); return -1; }
            o->tt.shared = 1;
        }
        self->ctx->tt = &o->tt;
        return 0;
    }
    if (!self->tt.head) {
        if (tt_init(&self->tt, self->mem_bytes, self->ctx->kw) < 0) { PyErr_NoMemory(); return -1; }
    }
    self->ctx->tt = &self->tt;
    return 0;
}

static int acquire(SolverObject *self)
{
    /* made by __new__ without __init__, or after an __init__ that failed */
    if (!self->ctx) { PyErr_SetString(PyExc_RuntimeError, "solver not initialised"); return -1; }
    if (self->busy) { PyErr_SetString(BusyError, "Solver is already in use"); return -1; }
    self->busy = 1;
    return 0;
}

static unsigned long main_ident;        /* threading.main_thread().ident (after_fork_in_child) */

/* Runs stmt, a search, without the GIL, so that it can stop (stop_check):
 * afterwards ctx->stopped is 0, or says why it stopped (see search_stopped). */
#define RUN_SEARCH(self, stmt) do { \
        Ctx *c_ = (self)->ctx; \
        c_->stopped = 0; \
        c_->poll = PyThread_get_thread_ident() == main_ident; \
        c_->next_poll = now_ms() + POLL_MS; \
        c_->ts = PyEval_SaveThread(); \
        if (__atomic_load_n(&c_->stop, __ATOMIC_RELAXED)) c_->stopped = 2; \
        else if (!setjmp(c_->jb)) { stmt; } \
        PyEval_RestoreThread(c_->ts); \
    } while (0)

/* After RUN_SEARCH: NULL with the error of a search that stopped (the
 * signal handler's, already set; or Cancelled), the solver free again. */
static PyObject *search_stopped(SolverObject *self)
{
    self->busy = 0;
    if (self->ctx->stopped == 2) PyErr_SetString(CancelledError, "the search was cancelled");
    self->ctx->stopped = 0;
    return NULL;
}

PyDoc_STRVAR(values_doc,
"values(hands, trump, leader, trick=()) -> (to_move, {card_index: tricks})\n\n"
"For every legal card of the hand to move, the tricks (the one in progress\n"
"included) that the side to move takes with best play by all four hands.");

static PyObject *Solver_values(SolverObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"hands", "trump", "leader", "trick", NULL};
    PyObject *hands, *trick = NULL;
    int trump, leader;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oii|O", kwlist, &hands, &trump, &leader, &trick)) return NULL;
    if (acquire(self) < 0) return NULL;
    PyObject *empty = NULL;
    if (!trick) trick = empty = PyTuple_New(0);
    int rc = load_position(self, hands, trump, leader, trick);
    Py_XDECREF(empty);
    if (rc < 0 || ensure_tt(self) < 0) { self->busy = 0; return NULL; }
    Ctx *c = self->ctx;
    Move mv[MAXMOVES];
    uint8_t top[MAXMOVES];
    int val[MAXMOVES], n = 0, h;
    int rt = tricks_left(c);
    RUN_SEARCH(self, h = GEO_CALL(self, values)(c, mv, top, val, &n));
    if (c->stopped) return search_stopped(self);
    self->busy = 0;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int i = 0; i < n; i++) {
        int side = (h & 1) ? rt - val[i] : val[i];
        PyObject *v = PyLong_FromLong(side);
        for (int r = mv[i].r; r <= top[i]; r++) {
            if (!(c->pres[h][mv[i].s] >> r & 1)) continue;
            PyObject *key = PyLong_FromLong(mv[i].s * c->R + r);
            PyDict_SetItem(d, key, v);
            Py_DECREF(key);
        }
        Py_DECREF(v);
    }
    return Py_BuildValue("(iN)", h, d);
}

PyDoc_STRVAR(tricks_doc,
"tricks(hands, trump, leader, trick=(), guess=-1, lo=0, hi=-1) -> int\n\n"
"North-South tricks from here (the trick in progress included) with best play,\n"
"exact where they lie in [lo, hi] (hi < 0: the tricks left), else the nearer\n"
"end: a window of one trick is a single null-window search.");

static PyObject *Solver_tricks(SolverObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"hands", "trump", "leader", "trick", "guess", "lo", "hi", NULL};
    PyObject *hands, *trick = NULL;
    int trump, leader, guess = -1, lo = 0, hi = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oii|Oiii", kwlist, &hands, &trump, &leader, &trick, &guess,
                                     &lo, &hi)) return NULL;
    if (acquire(self) < 0) return NULL;
    PyObject *empty = NULL;
    if (!trick) trick = empty = PyTuple_New(0);
    int rc = load_position(self, hands, trump, leader, trick);
    Py_XDECREF(empty);
    if (rc < 0 || ensure_tt(self) < 0) { self->busy = 0; return NULL; }
    Ctx *c = self->ctx;
    int v;
    RUN_SEARCH(self, v = GEO_CALL(self, tricks)(c, guess, lo, hi));
    if (c->stopped) return search_stopped(self);
    self->busy = 0;
    return PyLong_FromLong(v);
}

PyDoc_STRVAR(table_doc,
"table(hands, denominations=None, fresh=True, nt_east=-1) -> list\n\n"
"North-South tricks for every denomination (suits 0..S-1, then No Trump)\n"
"and every opening leader 0..3 (N, E, S, W), all cards in the hands: a list\n"
"of S+1 lists of 4 ints.  denominations: solve only these, in this order\n"
"(the others are None; default No Trump, then the suits).  fresh=False keeps\n"
"the table's entries of the same deal (an earlier call's denominations).\n"
"nt_east: East's No Trump value if known, for the suit contracts' first\n"
"guesses.");

static PyObject *Solver_table(SolverObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"hands", "denominations", "fresh", "nt_east", NULL};
    PyObject *hands, *dens = Py_None;
    int fresh = 1, nt_east = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Opi", kwlist, &hands, &dens, &fresh, &nt_east)) return NULL;
    if (!self->ctx) { PyErr_SetString(PyExc_RuntimeError, "solver not initialised"); return NULL; }
    int S = self->ctx->S, den[MAXS + 1], nd = 0;
    if (dens == Py_None) {
        den[nd++] = S;
        for (int d = 0; d < S; d++) den[nd++] = d;
    } else {
        PyObject *seq = PySequence_Fast(dens, "denominations must be a sequence of ints");
        if (!seq) return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        int seen = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            long d = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
            if (d == -1 && PyErr_Occurred()) { Py_DECREF(seq); return NULL; }
            if (d < 0 || d > S || (seen >> d & 1)) {
                Py_DECREF(seq);
                PyErr_Format(InputError, "denomination %ld: not 0..%d, or given twice", d, S);
                return NULL;
            }
            seen |= 1 << d;
            den[nd++] = (int)d;
        }
        Py_DECREF(seq);
    }
    if (nt_east < -1) nt_east = -1;
    if (acquire(self) < 0) return NULL;
    PyObject *empty = PyTuple_New(0);
    int rc = load_position(self, hands, -1, 0, empty);
    Py_DECREF(empty);
    if (rc < 0 || ensure_tt(self) < 0) { self->busy = 0; return NULL; }
    for (int h = 1; h < 4; h++)
        if (self->ctx->hlen[h] != self->ctx->hlen[0]) {
            self->busy = 0;
            PyErr_SetString(InputError, "hands must be of equal size");
            return NULL;
        }
    Ctx *c = self->ctx;
    if (c->tt->shared) {
        self->busy = 0;
        PyErr_SetString(PyExc_RuntimeError, "table() clears its table: not on a shared one (use leader())");
        return NULL;
    }
    if (nt_east > c->hlen[0]) nt_east = -1;
    int res[MAXS + 1][4];
    RUN_SEARCH(self, GEO_CALL(self, table)(c, den, nd, fresh, nt_east, res));
    if (c->stopped) return search_stopped(self);
    self->busy = 0;
    PyObject *out = PyList_New(S + 1);
    for (int d = 0; d <= S; d++) PyList_SET_ITEM(out, d, Py_NewRef(Py_None));
    for (int i = 0; i < nd; i++) {
        int d = den[i];
        PyObject *row = Py_BuildValue("[iiii]", res[d][0], res[d][1], res[d][2], res[d][3]);
        if (!row) { Py_DECREF(out); return NULL; }
        PyList_SetItem(out, d, row);
    }
    return out;
}

PyDoc_STRVAR(leader_doc,
"leader(hands, denomination, leader, guess=-1, nt_east=-1) -> int\n\n"
"North-South tricks of a deal (hands of equal size) in one denomination\n"
"(a suit, or the number of suits: No Trump) with `leader` on lead: one\n"
"entry of a DD table, for threads that share a table (share()).  guess:\n"
"the search's first guess at that number (-1: an estimate, from East's No\n"
"Trump value nt_east where known).");

static PyObject *Solver_leader(SolverObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"hands", "denomination", "leader", "guess", "nt_east", NULL};
    PyObject *hands;
    int d, leader, guess = -1, nt_east = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oii|ii", kwlist, &hands, &d, &leader, &guess, &nt_east)) return NULL;
    if (!self->ctx) { PyErr_SetString(PyExc_RuntimeError, "solver not initialised"); return NULL; }
    int S = self->ctx->S;
    if (d < 0 || d > S) { PyErr_Format(InputError, "denomination %d: not 0..%d", d, S); return NULL; }
    if (leader < 0 || leader > 3) { PyErr_Format(InputError, "leader %d: not 0..3", leader); return NULL; }
    if (acquire(self) < 0) return NULL;
    PyObject *empty = PyTuple_New(0);
    int rc = load_position(self, hands, -1, 0, empty);
    Py_DECREF(empty);
    if (rc < 0 || ensure_tt(self) < 0) { self->busy = 0; return NULL; }
    Ctx *c = self->ctx;
    for (int h = 1; h < 4; h++)
        if (c->hlen[h] != c->hlen[0]) {
            self->busy = 0;
            PyErr_SetString(InputError, "hands must be of equal size");
            return NULL;
        }
    if (guess > c->hlen[0]) guess = c->hlen[0];
    if (nt_east > c->hlen[0]) nt_east = -1;
    int v;
    RUN_SEARCH(self, v = GEO_CALL(self, leader)(c, d, leader, guess, nt_east));
    if (c->stopped) return search_stopped(self);
    self->busy = 0;
    return PyLong_FromLong(v);
}

PyDoc_STRVAR(share_doc,
"share(other)\n\n"
"Search other's table from now on, in place of this solver's own (which\n"
"is freed): several threads, each with its own solver, then search one\n"
"table at once, each storing what it finds for the others.  A search\n"
"clears a shared table only when it is full; clear() it between deals,\n"
"while no solver of it is searching; its solvers answer leader(), not table().");

static PyObject *Solver_share(SolverObject *self, PyObject *arg)
{
    if (!PyObject_TypeCheck(arg, Py_TYPE(self))) { PyErr_SetString(PyExc_TypeError, "share() takes a Solver"); return NULL; }
    SolverObject *o = (SolverObject *)arg;
    if (!self->ctx || !o->ctx) { PyErr_SetString(PyExc_RuntimeError, "solver not initialised"); return NULL; }
    if (o == self || o->owner) { PyErr_SetString(InputError, "share() takes a solver that owns its table"); return NULL; }
    if (o->geo != self->geo || o->ctx->S != self->ctx->S || o->ctx->R != self->ctx->R || o->ctx->C != self->ctx->C) {
        PyErr_SetString(InputError, "share(): solvers of different geometries");
        return NULL;
    }
    if (self->busy || o->busy) { PyErr_SetString(BusyError, "Solver is already in use"); return NULL; }
    /* this solver's own table is freed: not one that others search */
    if (self->tt.shared) { PyErr_SetString(InputError, "share(): this solver's table is shared by others"); return NULL; }
    if (!o->tt.head && tt_init(&o->tt, o->mem_bytes, o->ctx->kw) < 0) return PyErr_NoMemory();
    o->tt.shared = 1;
    tt_free(&self->tt);
    Py_INCREF(arg);
    Py_XSETREF(self->owner, arg);
    self->ctx->tt = &o->tt;
    Py_RETURN_NONE;
}

static PyObject *Solver_clear(SolverObject *self, PyObject *unused)
{
    if (acquire(self) < 0) return NULL;
    TT *t = self->owner ? &((SolverObject *)self->owner)->tt : &self->tt;
    if (t->head) {
        /* another thread may be searching a shared table meanwhile */
        if (t->shared) tt_lock(t);
        tt_full(t);
        if (t->shared) tt_unlock(t);
    }
    self->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *Solver_nodes(SolverObject *self, void *closure)
{
    return PyLong_FromLongLong(self->ctx ? self->ctx->nodes : 0);
}

static PyObject *Solver_stats(SolverObject *self, void *closure)
{
    Ctx *c = self->ctx;
    if (!c) { PyErr_SetString(PyExc_RuntimeError, "solver not initialised"); return NULL; }
    return Py_BuildValue("{sLsLsLsLsLsLsLsLsnsn}", "nodes", c->nodes, "searches", c->st_roots,
                         "lookups", c->st_lookups, "hits", c->st_hits,
                         "scanned", c->st_scan, "quick_cutoffs", c->st_qt, "trick_nodes", c->st_tricks, "clears", self->tt.clears,
                         "blocks_used", (Py_ssize_t)self->tt.bused,
                         "blocks", (Py_ssize_t)self->tt.bcap);
}

/* How full the transposition table is, (blocks used, blocks): safe to read
 * while other threads search a table this solver shares out (Solver.stats
 * reads counters the owner's own search writes, and is not). */
static PyObject *Solver_cancel(SolverObject *self, PyObject *args)
{
    /* from any thread: a search running now stops within about a thousand
     * trick nodes, and every search begun while the flag stays set stops
     * at once (the Python face clears it as a call of its own begins) */
    int stop = 1;
    if (!PyArg_ParseTuple(args, "|p", &stop)) return NULL;
    if (self->ctx) __atomic_store_n(&self->ctx->stop, stop, __ATOMIC_RELAXED);
    Py_RETURN_NONE;
}

/* In a child process forked from a thread other than the main one, that
 * thread is the child's main thread (it takes the signals): core.py calls
 * this there (os.register_at_fork). */
static PyObject *after_fork_in_child(PyObject *module, PyObject *unused)
{
    main_ident = PyThread_get_thread_ident();
    Py_RETURN_NONE;
}

static PyObject *Solver_fill(SolverObject *self, void *closure)
{
    return Py_BuildValue("nn", (Py_ssize_t)__atomic_load_n(&self->tt.bused, __ATOMIC_RELAXED),
                         (Py_ssize_t)self->tt.bcap);
}

static PyObject *Solver_memory(SolverObject *self, void *closure)
{
    return PyLong_FromSize_t(self->mem_bytes);
}

static PyMethodDef Solver_methods[] = {
    {"values", (PyCFunction)(void (*)(void))Solver_values, METH_VARARGS | METH_KEYWORDS, values_doc},
    {"tricks", (PyCFunction)(void (*)(void))Solver_tricks, METH_VARARGS | METH_KEYWORDS, tricks_doc},
    {"table", (PyCFunction)(void (*)(void))Solver_table, METH_VARARGS | METH_KEYWORDS, table_doc},
    {"leader", (PyCFunction)(void (*)(void))Solver_leader, METH_VARARGS | METH_KEYWORDS, leader_doc},
    {"share", (PyCFunction)Solver_share, METH_O, share_doc},
    {"clear", (PyCFunction)Solver_clear, METH_NOARGS, "clear()\n\nEmpty the table (a shared one even while other threads search it)."},
    {"cancel", (PyCFunction)Solver_cancel, METH_VARARGS, "cancel(stop=True)\n\nStop the search this solver runs (on another thread), and every one begun\nuntil cancel(False): each raises Cancelled."},
    {NULL}
};

static PyGetSetDef Solver_getset[] = {
    {"nodes", (getter)Solver_nodes, NULL, "search nodes visited so far", NULL},
    {"stats", (getter)Solver_stats, NULL, "search statistics", NULL},
    {"fill", (getter)Solver_fill, NULL, "(blocks used, blocks) of the transposition table; safe while a shared table is searched", NULL},
    {"memory_bytes", (getter)Solver_memory, NULL, "transposition table size limit in bytes", NULL},
    {NULL}
};

PyDoc_STRVAR(Solver_doc,
"Solver(suits=3, ranks=10, copies=2, memory_mb=128, specialized=True)\n\n"
"Double-dummy search engine for one game geometry.  Holds its own\n"
"transposition table (allocated on first use, at most memory_mb).  Calls\n"
"release the GIL; one Solver must not be used by two threads at once.\n"
"specialized=False runs the search compiled for any geometry even where\n"
"one compiled for this geometry exists (for tests).");

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "flowerbridge.solver._core.Solver",
    .tp_basicsize = sizeof(SolverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Solver_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Solver_init,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
};

static PyObject *core_release_memory(PyObject *unused, PyObject *noargs)
{
    return PyLong_FromSize_t(release_parked());
}

static PyObject *core_kept_memory(PyObject *unused, PyObject *noargs)
{
    return PyLong_FromSize_t(parked_bytes);
}

static PyMethodDef core_functions[] = {
    {"release_memory", core_release_memory, METH_NOARGS,
     "release_memory()\n\nGive the memory of freed tables, kept for the next ones, back to the system:\n"
     "the bytes given back."},
    {"kept_memory", core_kept_memory, METH_NOARGS,
     "kept_memory()\n\nThe bytes of freed tables' memory kept for the next tables."},
    {"after_fork_in_child", after_fork_in_child, METH_NOARGS,
     "after_fork_in_child()\n\nTake the calling thread as the main one (in a child process after fork)."},
    {NULL}
};

static struct PyModuleDef coremodule = {
    PyModuleDef_HEAD_INIT, "_core", "Compiled double-dummy search core.", -1, core_functions,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *m = PyModule_Create(&coremodule);
    if (!m) return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(m, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(m);
        return NULL;
    }
    /* 1 when setup.py built the core with profile-guided optimisation
     * (FB_PGO is defined in both of its compilations), 0 for the plain
     * build: the benchmarks say which they timed */
#ifndef FB_PGO
#define FB_PGO 0
#endif
    if (PyModule_AddIntConstant(m, "PROFILE_GUIDED", FB_PGO) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    /* a search on the main thread looks for signals (see stop_check) */
    PyObject *threading = PyImport_ImportModule("threading");
    PyObject *mt = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
    PyObject *ident = mt ? PyObject_GetAttrString(mt, "ident") : NULL;
    Py_XDECREF(mt);
    Py_XDECREF(threading);
    if (!ident) { Py_DECREF(m); return NULL; }
    main_ident = PyLong_AsUnsignedLong(ident);
    Py_DECREF(ident);
    if (PyErr_Occurred()) { Py_DECREF(m); return NULL; }
    /* once: this file loaded again under another name (a test does) must
     * raise the classes the package catches */
    if (!CancelledError)
        CancelledError = PyErr_NewExceptionWithDoc("flowerbridge.solver._core.Cancelled",
                                                   "A search stopped by Solver.cancel().", NULL, NULL);
    if (!InputError)
        InputError = PyErr_NewExceptionWithDoc("flowerbridge.solver._core.InputError",
                                               "A position or argument the core cannot take.", PyExc_ValueError, NULL);
    if (!BusyError)
        BusyError = PyErr_NewExceptionWithDoc("flowerbridge.solver._core.BusyError",
                                              "A solver asked to search while it searches.", PyExc_RuntimeError, NULL);
    if (!CancelledError || !InputError || !BusyError || PyModule_AddObjectRef(m, "Cancelled", CancelledError) < 0
        || PyModule_AddObjectRef(m, "InputError", InputError) < 0 || PyModule_AddObjectRef(m, "BusyError", BusyError) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
#endif  /* GEO_SPECIAL */
