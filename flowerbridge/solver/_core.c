/*
 * Generic double-dummy solver core for trick-taking games of the Bridge
 * family with any number of suits, ranks per suit and identical copies per
 * card (up to the limits below).  Used for Flower Bridge (3 x 10 x 2) and
 * for standard Contract Bridge (4 x 13 x 1).
 *
 * Rule implemented (Flower Bridge R12, also true in Bridge where no two cards
 * are equal): a card takes over a trick only by OUTRANKING the card
 * currently winning it, so of two identical cards the one played first wins.
 *
 * Search: boolean null-window alpha-beta ("can North-South take at least T
 * tricks?") driven by an MTD(f)-style loop on T; a transposition table at
 * trick boundaries keyed on relative ranks (per remaining rank: which hands
 * hold how many copies); quick-tricks / later-tricks cut-offs at the start of
 * each trick; one move per group of equivalent cards; heuristic move
 * ordering plus the best lead remembered in the transposition table.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXS 8          /* suits */
#define MAXR 16         /* ranks per suit (rank masks are 32-bit) */
#define MAXC 4          /* identical copies per card */
#define MAXT 64         /* tricks (cards per hand) */
#define MAXMOVES (MAXS * MAXR)
#define KEYW 4          /* 64-bit words in a transposition-table key */
#define WAYS 4          /* entries per hash bucket */

typedef struct { uint8_t s, r; } Move;

typedef struct {
    uint64_t k[KEYW];
    uint8_t lb, ub;     /* bounds on North-South tricks still to come */
    uint8_t meta;       /* leader | (trump + 1) << 2 */
    uint8_t depth;      /* tricks left; 0 = empty slot */
    uint8_t bs, bg;     /* best lead: suit, group index from the top */
    uint16_t gen;
} Entry;

typedef struct { Entry e[WAYS]; } Bucket;

typedef struct {
    Bucket *b;
    size_t nb;          /* number of buckets (power of two) */
    uint16_t gen;
} TT;

typedef struct {
    int S, R, C;
    int trump;                          /* -1: No Trump */
    uint8_t cnt[4][MAXS][MAXR];         /* copies of (suit, rank) per hand */
    uint32_t pres[4][MAXS];             /* rank mask: hand holds >= 1 copy */
    int len[4][MAXS];
    int hlen[4];
    int leader, k, ns, ti;              /* trick leader, cards on table, NS tricks since root, trick index */
    Move tc[MAXT + 1][4];
    int wpos;                           /* position in trick of winning card */
    TT *tt;
    long long nodes;
    /* key encoding */
    int codebits, lenbits;
    int16_t code[(MAXC + 1) * (MAXC + 1) * (MAXC + 1) * (MAXC + 1)];
} Ctx;

typedef struct { int wpos, leader, ns, done; } Undo;

static inline int hb(uint32_t x) { return x ? 31 - __builtin_clz(x) : -1; }

/* ------------------------------------------------------------------ */
/* Transposition table                                                 */

static int tt_init(TT *t, size_t bytes)
{
    size_t nb = 1;
    while (nb * 2 * sizeof(Bucket) <= bytes) nb *= 2;
    t->b = (Bucket *)calloc(nb, sizeof(Bucket));
    if (!t->b) return -1;
    t->nb = nb;
    t->gen = 1;
    return 0;
}

static inline uint64_t hash_key(const uint64_t *k, unsigned meta)
{
    uint64_t h = (meta + 1) * 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < KEYW; i++) {
        h ^= k[i];
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    return h;
}

static inline Entry *tt_probe(TT *t, const uint64_t *k, unsigned meta, uint64_t hv)
{
    Bucket *b = &t->b[hv & (t->nb - 1)];
    for (int i = 0; i < WAYS; i++) {
        Entry *e = &b->e[i];
        if (e->depth && e->meta == meta && e->k[0] == k[0] && e->k[1] == k[1]
            && e->k[2] == k[2] && e->k[3] == k[3])
            return e;
    }
    return NULL;
}

static inline Entry *tt_slot(TT *t, const uint64_t *k, unsigned meta, uint64_t hv, int depth)
{
    Bucket *b = &t->b[hv & (t->nb - 1)];
    Entry *victim = NULL;
    int vscore = 1 << 30;
    for (int i = 0; i < WAYS; i++) {
        Entry *e = &b->e[i];
        if (e->depth && e->meta == meta && memcmp(e->k, k, sizeof(e->k)) == 0)
            return e;
        /* prefer empty slots, then entries of older searches, then shallow ones */
        int sc = e->depth == 0 ? -1 : (e->gen != t->gen ? 0 : 1) * 256 + e->depth;
        if (sc < vscore) { vscore = sc; victim = e; }
    }
    memcpy(victim->k, k, sizeof(victim->k));
    victim->meta = (uint8_t)meta;
    victim->depth = (uint8_t)depth;
    victim->lb = 0;
    victim->ub = (uint8_t)depth;
    victim->bs = 0xff;
    victim->bg = 0xff;
    victim->gen = t->gen;
    return victim;
}

/* ------------------------------------------------------------------ */
/* Position keys: relative ranks, copies per hand                       */

static void init_codes(Ctx *c)
{
    /* Every remaining rank is coded by the vector of copies per hand.  A rank
     * held by a single hand is written as that many single-copy codes: cards
     * exclusive to one hand and adjacent among the remaining cards are
     * interchangeable, so e.g. {9,9} and {9,8} held alone are one position. */
    int C = c->C, n = 0;
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
                    c->code[((a * B + b) * B + d) * B + e] = (int16_t)n++;
                }
    int bits = 1;
    while ((1 << bits) < n) bits++;
    c->codebits = bits;
    int lb = 1;
    while ((1 << lb) <= c->R * C) lb++;
    c->lenbits = lb;
}

static inline void put_bits(uint64_t *k, int *pos, uint64_t v, int nbits)
{
    int p = *pos, w = p >> 6, o = p & 63;
    k[w] |= v << o;
    if (o + nbits > 64) k[w + 1] |= v >> (64 - o);
    *pos = p + nbits;
}

static void make_key(const Ctx *c, uint64_t *k)
{
    int pos = 0, B = c->C + 1;
    for (int i = 0; i < KEYW; i++) k[i] = 0;
    for (int s = 0; s < c->S; s++) {
        int start = pos, n = 0;
        pos += c->lenbits;
        uint32_t all = c->pres[0][s] | c->pres[1][s] | c->pres[2][s] | c->pres[3][s];
        while (all) {
            int r = hb(all);
            all &= ~(1u << r);
            int a = c->cnt[0][s][r], b = c->cnt[1][s][r], d = c->cnt[2][s][r], e = c->cnt[3][s][r];
            int holders = (a > 0) + (b > 0) + (d > 0) + (e > 0);
            if (holders == 1) {
                int h = a ? 0 : b ? 1 : d ? 2 : 3;
                int m = a + b + d + e;
                int one[4] = {0, 0, 0, 0};
                one[h] = 1;
                int cd = c->code[((one[0] * B + one[1]) * B + one[2]) * B + one[3]];
                for (int j = 0; j < m; j++) { put_bits(k, &pos, (uint64_t)cd, c->codebits); n++; }
            } else {
                put_bits(k, &pos, (uint64_t)c->code[((a * B + b) * B + d) * B + e], c->codebits);
                n++;
            }
        }
        int save = start;
        put_bits(k, &save, (uint64_t)n, c->lenbits);
    }
}

/* ------------------------------------------------------------------ */
/* Playing cards                                                        */

static inline int beats(const Ctx *c, Move a, Move w)
{
    if (a.s == w.s) return a.r > w.r;     /* equal rank never takes over */
    return a.s == c->trump;
}

static inline void play(Ctx *c, int h, Move m, Undo *u)
{
    if (--c->cnt[h][m.s][m.r] == 0) c->pres[h][m.s] &= ~(1u << m.r);
    c->len[h][m.s]--;
    c->hlen[h]--;
    c->tc[c->ti][c->k] = m;
    u->wpos = c->wpos;
    if (c->k == 0) c->wpos = 0;
    else if (beats(c, m, c->tc[c->ti][c->wpos])) c->wpos = c->k;
    c->k++;
    if (c->k == 4) {
        u->done = 1;
        u->leader = c->leader;
        u->ns = c->ns;
        int w = (c->leader + c->wpos) & 3;
        if (!(w & 1)) c->ns++;
        c->leader = w;
        c->k = 0;
        c->ti++;
    } else {
        u->done = 0;
    }
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
    if (c->cnt[h][m.s][m.r]++ == 0) c->pres[h][m.s] |= 1u << m.r;
    c->len[h][m.s]++;
    c->hlen[h]++;
}

/* Legal moves of hand h, one per group of equivalent cards.  Cards of one
 * suit in h are equivalent when no other hand holds, and no card on the table
 * is, a copy of their rank or of any rank between them.  rep = lowest rank of
 * the group, top[] = highest. */
static int gen_moves(const Ctx *c, int h, Move *mv, uint8_t *top)
{
    int n = 0, s0 = 0, s1 = c->S;
    if (c->k > 0) {
        int ls = c->tc[c->ti][0].s;
        if (c->len[h][ls] > 0) { s0 = ls; s1 = ls + 1; }
    }
    for (int s = s0; s < s1; s++) {
        uint32_t mine = c->pres[h][s];
        if (!mine) continue;
        uint32_t block = 0;
        for (int o = 0; o < 4; o++) if (o != h) block |= c->pres[o][s];
        for (int j = 0; j < c->k; j++)
            if (c->tc[c->ti][j].s == s) block |= 1u << c->tc[c->ti][j].r;
        uint32_t all = mine | block;
        int inrun = 0;
        while (all) {
            int r = hb(all);
            uint32_t bit = 1u << r;
            all &= ~bit;
            if ((mine & bit) && !(block & bit)) {
                if (!inrun) { mv[n].s = (uint8_t)s; mv[n].r = (uint8_t)r; top[n] = (uint8_t)r; n++; inrun = 1; }
                else mv[n - 1].r = (uint8_t)r;
            } else {
                if (mine & bit) { mv[n].s = (uint8_t)s; mv[n].r = (uint8_t)r; top[n] = (uint8_t)r; n++; }
                inrun = 0;
            }
        }
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Move ordering                                                        */

static void order_moves(const Ctx *c, int h, Move *mv, uint8_t *top, int n, const Entry *e)
{
    int sc[MAXMOVES];
    int p = (h + 2) & 3, o1 = (h + 1) & 3, o2 = (h + 3) & 3;
    int T = c->trump;
    if (c->k == 0) {
        for (int i = 0; i < n; i++) {
            int s = mv[i].s, lo = mv[i].r, tp = top[i];
            int maxOpp = hb(c->pres[o1][s] | c->pres[o2][s]);
            int maxPard = hb(c->pres[p][s]);
            int ruff = T >= 0 && s != T &&
                ((c->len[o1][s] == 0 && c->len[o1][T] > 0) || (c->len[o2][s] == 0 && c->len[o2][T] > 0));
            int pruff = T >= 0 && s != T && c->len[p][s] == 0 && c->len[p][T] > 0;
            int v;
            if (tp >= maxOpp && tp >= maxPard && !ruff) v = 600 + tp;
            else if (pruff && !ruff) v = 550 - lo;
            else if (maxPard > maxOpp && !ruff) v = 500 - lo;
            else if (ruff) v = 100 - lo;
            else v = 300 - lo - 4 * c->len[h][s];
            sc[i] = v;
        }
        if (e && e->bs != 0xff) {
            int g = 0;
            for (int i = 0; i < n; i++) {
                if (mv[i].s != e->bs) continue;
                if (g++ == e->bg) { sc[i] += 10000; break; }
            }
        }
    } else {
        Move w = c->tc[c->ti][c->wpos];
        int wh = (c->leader + c->wpos) & 3;
        int pardWins = ((wh ^ h) & 1) == 0;
        int ls = c->tc[c->ti][0].s;
        int nxt = (h + 1) & 3;
        for (int i = 0; i < n; i++) {
            int s = mv[i].s, lo = mv[i].r;
            int wins = beats(c, mv[i], w);
            int v;
            if (pardWins) {
                v = -lo - (wins ? 50 : 0) - (s == T && ls != T ? 40 : 0);
            } else if (wins) {
                if (c->k == 3) {
                    v = 200 - lo - (s == T && ls != T ? 40 : 0);
                } else {
                    /* would the opponent playing last still beat it? */
                    int safe;
                    if (c->len[nxt][ls] > 0) {
                        safe = s != ls ? 1 : lo >= hb(c->pres[nxt][ls]);
                    } else {
                        safe = !(T >= 0 && c->len[nxt][T] > 0 && (s != T || lo < hb(c->pres[nxt][T])));
                    }
                    if (c->k == 1 && !safe) v = 20 - lo;
                    else v = (safe ? 150 : 60) - lo - (s == T && ls != T ? 40 : 0);
                }
            } else {
                v = 50 - lo - (s == T ? 30 : 0) + (s != ls ? c->len[h][s] : 0);
            }
            sc[i] = v;
        }
    }
    /* insertion sort, best first */
    for (int i = 1; i < n; i++) {
        int v = sc[i];
        Move m = mv[i];
        uint8_t t = top[i];
        int j = i - 1;
        while (j >= 0 && sc[j] < v) { sc[j + 1] = sc[j]; mv[j + 1] = mv[j]; top[j + 1] = top[j]; j--; }
        sc[j + 1] = v; mv[j + 1] = m; top[j + 1] = t;
    }
}

/* ------------------------------------------------------------------ */
/* Cut-offs at the start of a trick                                     */

/* Tricks the leader's side can surely cash from the top, keeping the lead in
 * the leader's hand: a card at least as high as every other hand's cards of
 * its suit wins when led (an equal copy played later does not outrank it). */
static int quick_tricks(const Ctx *c, int L)
{
    int p = (L + 2) & 3, o1 = (L + 1) & 3, o2 = (L + 3) & 3;
    int T = c->trump;
    int side = 0, trumpq = 0;
    for (int s = 0; s < c->S; s++) {
        uint32_t mine = c->pres[L][s];
        if (!mine) continue;
        int mo = hb(c->pres[p][s] | c->pres[o1][s] | c->pres[o2][s]);
        int q = 0;
        if (mo < 0) q = c->len[L][s];
        else for (int r = c->R - 1; r >= mo; r--) q += c->cnt[L][s][r];
        if (s == T) { trumpq = q; continue; }
        if (T >= 0) {
            /* an opponent with trumps can ruff once void */
            if (c->len[o1][T] > 0 && q > c->len[o1][s]) q = c->len[o1][s];
            if (c->len[o2][T] > 0 && q > c->len[o2][s]) q = c->len[o2][s];
        }
        side += q;
    }
    if (T >= 0 && c->len[p][T] > 0) {
        /* partner must be able to play a non-trump to every side-suit round,
         * or he would ruff and take the lead away */
        int pnt = c->hlen[p] - c->len[p][T];
        if (side > pnt) side = pnt;
    }
    return side + trumpq;
}

/* ------------------------------------------------------------------ */
/* Search                                                               */

static int last_trick_ns(const Ctx *c)
{
    Move w = {0, 0};
    int wpos = 0;
    for (int i = 0; i < 4; i++) {
        int h = (c->leader + i) & 3;
        Move m = {0, 0};
        for (int s = 0; s < c->S; s++)
            if (c->pres[h][s]) { m.s = (uint8_t)s; m.r = (uint8_t)hb(c->pres[h][s]); break; }
        if (i == 0 || beats(c, m, w)) { w = m; wpos = i; }
    }
    return !(((c->leader + wpos) & 3) & 1);
}

static int search(Ctx *c, int target)
{
    c->nodes++;
    int k = c->k;
    int h = (c->leader + k) & 3;
    uint64_t key[KEYW];
    uint64_t hv = 0;
    unsigned meta = 0;
    Entry *e = NULL;
    int need = 0, r = 0;
    if (k == 0) {
        r = c->hlen[h];
        need = target - c->ns;              /* North-South tricks still needed */
        if (need <= 0) return 1;
        if (need > r) return 0;
        if (r == 1) return last_trick_ns(c) >= need;
        int q = quick_tricks(c, h);
        int T = c->trump;
        if (T >= 0) {
            /* the side holding every copy of the top trump takes a trick */
            uint32_t all = c->pres[0][T] | c->pres[1][T] | c->pres[2][T] | c->pres[3][T];
            if (all) {
                int tr = hb(all);
                int nsc = c->cnt[0][T][tr] + c->cnt[2][T][tr];
                int ewc = c->cnt[1][T][tr] + c->cnt[3][T][tr];
                int mine = (h & 1) ? ewc : nsc, theirs = (h & 1) ? nsc : ewc;
                if (mine == 0 && theirs > 0) {
                    if (!(h & 1)) { if (r - 1 < need) return 0; }
                    else { if (need <= 1) return 1; }
                } else if (theirs == 0 && q < 1) q = 1;
            }
        }
        if (!(h & 1)) { if (q >= need) return 1; }
        else { if (r - q < need) return 0; }
        make_key(c, key);
        meta = (unsigned)h | (unsigned)(c->trump + 1) << 2;
        hv = hash_key(key, meta);
        e = tt_probe(c->tt, key, meta, hv);
        if (e) {
            if (e->lb >= need) return 1;
            if (e->ub < need) return 0;
        }
    }
    Move mv[MAXMOVES];
    uint8_t top[MAXMOVES];
    int n = gen_moves(c, h, mv, top);
    if (n > 1) order_moves(c, h, mv, top, n, e);
    int maxing = !(h & 1);
    int result = maxing ? 0 : 1;
    int best = 0;
    for (int i = 0; i < n; i++) {
        Undo u;
        play(c, h, mv[i], &u);
        int v = search(c, target);
        unplay(c, h, mv[i], &u);
        if (v == maxing) { result = v; best = i; break; }
    }
    if (k == 0) {
        e = tt_slot(c->tt, key, meta, hv, r);
        if (result) { if (e->lb < need) e->lb = (uint8_t)need; }
        else { if (e->ub > need - 1) e->ub = (uint8_t)(need - 1); }
        if (result == maxing) {
            /* remember the lead that produced the cut-off */
            int g = 0;
            Move mv2[MAXMOVES];
            uint8_t top2[MAXMOVES];
            int n2 = gen_moves(c, h, mv2, top2);
            for (int j = 0; j < n2; j++) {
                if (mv2[j].s != mv[best].s) continue;
                if (mv2[j].r == mv[best].r) { e->bs = mv[best].s; e->bg = (uint8_t)g; break; }
                g++;
            }
        }
        e->gen = c->tt->gen;
    }
    return result;
}

/* Exact North-South tricks (counted since the root) in [lo, hi], by a
 * sequence of null-window searches starting from a guess. */
static int mtd(Ctx *c, int lo, int hi, int guess)
{
    while (lo < hi) {
        int t = guess;
        if (t <= lo) t = lo + 1;
        if (t > hi) t = hi;
        if (search(c, t)) { lo = t; guess = t + 1; }
        else { hi = t - 1; guess = t - 1; }
    }
    return lo;
}

static inline int to_move(const Ctx *c) { return (c->leader + c->k) & 3; }

/* Tricks still to be played, the one in progress included. */
static inline int tricks_left(const Ctx *c) { return c->hlen[to_move(c)]; }

/* ------------------------------------------------------------------ */
/* Python object                                                        */

typedef struct {
    PyObject_HEAD
    Ctx *ctx;
    TT tt;
    size_t mem_bytes;
    int busy;
} SolverObject;

static void Solver_dealloc(SolverObject *self)
{
    free(self->tt.b);
    free(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Solver_init(SolverObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"suits", "ranks", "copies", "memory_mb", NULL};
    int S = 3, R = 10, C = 2;
    double mem = 128.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|iiid", kwlist, &S, &R, &C, &mem)) return -1;
    if (S < 1 || S > MAXS || R < 1 || R > MAXR || C < 1 || C > MAXC) {
        PyErr_Format(PyExc_ValueError, "unsupported geometry: %d suits x %d ranks x %d copies", S, R, C);
        return -1;
    }
    if (mem < 1.0) { PyErr_SetString(PyExc_ValueError, "memory_mb must be at least 1"); return -1; }
    free(self->ctx);
    self->ctx = (Ctx *)calloc(1, sizeof(Ctx));
    if (!self->ctx) { PyErr_NoMemory(); return -1; }
    Ctx *c = self->ctx;
    c->S = S; c->R = R; c->C = C;
    init_codes(c);
    if (S * (c->lenbits + R * C * c->codebits) > 64 * KEYW) {
        PyErr_Format(PyExc_ValueError, "geometry %d x %d x %d too large for the position key", S, R, C);
        return -1;
    }
    if ((S * R * C) / 4 > MAXT) { PyErr_SetString(PyExc_ValueError, "too many cards per hand"); return -1; }
    self->mem_bytes = (size_t)(mem * 1024.0 * 1024.0);
    free(self->tt.b);
    self->tt.b = NULL;
    self->busy = 0;
    return 0;
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
        PyErr_SetString(PyExc_ValueError, "hands must hold 4 * suits * ranks counts");
        return -1;
    }
    const uint8_t *p = (const uint8_t *)buf.buf;
    memset(c->cnt, 0, sizeof(c->cnt));
    memset(c->pres, 0, sizeof(c->pres));
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
                c->len[h][s] += v;
                c->hlen[h] += v;
                tot[s][r] += v;
            }
    PyBuffer_Release(&buf);
    if (trump < -1 || trump >= S) { PyErr_SetString(PyExc_ValueError, "bad trump"); return -1; }
    if (leader < 0 || leader > 3) { PyErr_SetString(PyExc_ValueError, "bad leader"); return -1; }
    c->trump = trump;
    c->leader = leader;
    c->k = 0; c->ns = 0; c->ti = 0; c->wpos = 0;
    PyObject *seq = PySequence_Fast(trick, "trick must be a sequence of card indices");
    if (!seq) return -1;
    Py_ssize_t nt = PySequence_Fast_GET_SIZE(seq);
    if (nt > 3) { Py_DECREF(seq); PyErr_SetString(PyExc_ValueError, "a trick in progress has at most 3 cards"); return -1; }
    for (Py_ssize_t i = 0; i < nt; i++) {
        long ci = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (ci == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
        if (ci < 0 || ci >= S * R) { Py_DECREF(seq); PyErr_SetString(PyExc_ValueError, "bad card in trick"); return -1; }
        Move m = {(uint8_t)(ci / R), (uint8_t)(ci % R)};
        int h = (leader + (int)i) & 3;
        /* lay the card on the table as if played from the hand */
        c->cnt[h][m.s][m.r]++;
        c->pres[h][m.s] |= 1u << m.r;
        c->len[h][m.s]++;
        c->hlen[h]++;
        tot[m.s][m.r]++;
        if (i > 0) {
            int ls = c->tc[0][0].s;
            if (m.s != ls && c->len[h][ls] > 0) {
                Py_DECREF(seq);
                PyErr_SetString(PyExc_ValueError, "card in trick does not follow suit");
                return -1;
            }
        }
        Undo u;
        play(c, h, m, &u);
    }
    Py_DECREF(seq);
    for (int s = 0; s < S; s++)
        for (int r = 0; r < R; r++)
            if (tot[s][r] > c->C) { PyErr_SetString(PyExc_ValueError, "more copies of a card than the deck holds"); return -1; }
    int tm = to_move(c);
    int n = c->hlen[tm];
    for (int i = 0; i < 4; i++) {
        int h = (leader + i) & 3;
        int want = i < c->k ? n - 1 : n;
        if (c->hlen[h] != want) { PyErr_SetString(PyExc_ValueError, "hand sizes do not fit the trick in progress"); return -1; }
    }
    if (n < 1) { PyErr_SetString(PyExc_ValueError, "no cards left to play"); return -1; }
    if (n > MAXT) { PyErr_SetString(PyExc_ValueError, "too many cards per hand"); return -1; }
    return 0;
}

static int ensure_tt(SolverObject *self)
{
    if (!self->tt.b) {
        if (tt_init(&self->tt, self->mem_bytes) < 0) { PyErr_NoMemory(); return -1; }
    }
    self->ctx->tt = &self->tt;
    return 0;
}

static int acquire(SolverObject *self)
{
    if (self->busy) { PyErr_SetString(PyExc_RuntimeError, "Solver is already in use by another thread"); return -1; }
    self->busy = 1;
    return 0;
}

/* Root values: for every legal group, NS tricks (since the root). */
static int root_values(Ctx *c, Move *mv, uint8_t *top, int *val, int *nout)
{
    int h = to_move(c);
    int n = gen_moves(c, h, mv, top);
    order_moves(c, h, mv, top, n, NULL);
    int guess = -1;
    for (int i = 0; i < n; i++) {
        Undo u;
        play(c, h, mv[i], &u);
        int lo = c->ns, hi = c->ns + (c->k == 0 && c->hlen[c->leader] == 0 ? 0 : tricks_left(c));
        if (guess < 0) guess = lo + (hi - lo + 1) / 2;
        val[i] = mtd(c, lo, hi, guess);
        guess = val[i];
        unplay(c, h, mv[i], &u);
    }
    *nout = n;
    return h;
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
    Py_BEGIN_ALLOW_THREADS
    c->tt->gen++;
    h = root_values(c, mv, top, val, &n);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int i = 0; i < n; i++) {
        int side = (h & 1) ? rt - val[i] : val[i];
        PyObject *v = PyLong_FromLong(side);
        for (int r = mv[i].r; r <= top[i]; r++) {
            int held = c->cnt[h][mv[i].s][r];
            if (!held) continue;
            PyObject *key = PyLong_FromLong(mv[i].s * c->R + r);
            PyDict_SetItem(d, key, v);
            Py_DECREF(key);
        }
        Py_DECREF(v);
    }
    return Py_BuildValue("(iN)", h, d);
}

PyDoc_STRVAR(tricks_doc,
"tricks(hands, trump, leader, trick=(), guess=-1) -> int\n\n"
"North-South tricks from here (the trick in progress included) with best play.");

static PyObject *Solver_tricks(SolverObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"hands", "trump", "leader", "trick", "guess", NULL};
    PyObject *hands, *trick = NULL;
    int trump, leader, guess = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oii|Oi", kwlist, &hands, &trump, &leader, &trick, &guess)) return NULL;
    if (acquire(self) < 0) return NULL;
    PyObject *empty = NULL;
    if (!trick) trick = empty = PyTuple_New(0);
    int rc = load_position(self, hands, trump, leader, trick);
    Py_XDECREF(empty);
    if (rc < 0 || ensure_tt(self) < 0) { self->busy = 0; return NULL; }
    Ctx *c = self->ctx;
    int v;
    Py_BEGIN_ALLOW_THREADS
    c->tt->gen++;
    int rt = tricks_left(c);
    if (guess < 0) guess = rt / 2;
    v = mtd(c, 0, rt, guess);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    return PyLong_FromLong(v);
}

PyDoc_STRVAR(table_doc,
"table(hands) -> list of (suits+1) lists of 4 ints\n\n"
"North-South tricks for every denomination (suits 0..S-1, then No Trump)\n"
"and every opening leader 0..3 (N, E, S, W), all cards in the hands.");

static PyObject *Solver_table(SolverObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"hands", NULL};
    PyObject *hands;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &hands)) return NULL;
    if (acquire(self) < 0) return NULL;
    PyObject *empty = PyTuple_New(0);
    int rc = load_position(self, hands, -1, 0, empty);
    Py_DECREF(empty);
    if (rc < 0 || ensure_tt(self) < 0) { self->busy = 0; return NULL; }
    for (int h = 1; h < 4; h++)
        if (self->ctx->hlen[h] != self->ctx->hlen[0]) {
            self->busy = 0;
            PyErr_SetString(PyExc_ValueError, "hands must be of equal size");
            return NULL;
        }
    Ctx *c = self->ctx;
    int S = c->S;
    int res[MAXS + 1][4];
    Py_BEGIN_ALLOW_THREADS
    c->tt->gen++;
    int r = c->hlen[0];
    for (int d = 0; d <= S; d++) {
        c->trump = d == S ? -1 : d;
        int guess = r / 2;
        for (int i = 0; i < 4; i++) {
            /* order E, S, W, N so consecutive leaders are of alternate sides */
            int L = (i + 1) & 3;
            c->leader = L; c->k = 0; c->ns = 0; c->ti = 0;
            res[d][L] = mtd(c, 0, r, guess);
            guess = (i & 1) ? res[d][L] : res[d][L];
        }
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
    PyObject *out = PyList_New(S + 1);
    for (int d = 0; d <= S; d++)
        PyList_SET_ITEM(out, d, Py_BuildValue("[iiii]", res[d][0], res[d][1], res[d][2], res[d][3]));
    return out;
}

static PyObject *Solver_nodes(SolverObject *self, void *closure)
{
    return PyLong_FromLongLong(self->ctx ? self->ctx->nodes : 0);
}

static PyObject *Solver_memory(SolverObject *self, void *closure)
{
    return PyLong_FromSize_t(self->mem_bytes);
}

static PyMethodDef Solver_methods[] = {
    {"values", (PyCFunction)(void (*)(void))Solver_values, METH_VARARGS | METH_KEYWORDS, values_doc},
    {"tricks", (PyCFunction)(void (*)(void))Solver_tricks, METH_VARARGS | METH_KEYWORDS, tricks_doc},
    {"table", (PyCFunction)(void (*)(void))Solver_table, METH_VARARGS | METH_KEYWORDS, table_doc},
    {NULL}
};

static PyGetSetDef Solver_getset[] = {
    {"nodes", (getter)Solver_nodes, NULL, "search nodes visited so far", NULL},
    {"memory_bytes", (getter)Solver_memory, NULL, "transposition table size limit in bytes", NULL},
    {NULL}
};

PyDoc_STRVAR(Solver_doc,
"Solver(suits=3, ranks=10, copies=2, memory_mb=128)\n\n"
"Double-dummy search engine for one game geometry.  Holds its own\n"
"transposition table (allocated on first use, at most memory_mb).  Calls\n"
"release the GIL; one Solver must not be used by two threads at once.");

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

static struct PyModuleDef coremodule = {
    PyModuleDef_HEAD_INIT, "_core", "Compiled double-dummy search core.", -1, NULL,
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
    return m;
}
