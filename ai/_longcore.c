/* The long nardy move generator in C, for the search (ai/long_search.py).
 *
 * The rules live in engine/: this file is a fast mirror of
 * engine._movegen's Generator for long nardy (the head rule with its
 * first-turn exception, the block rule, bearing off, both dice or the larger
 * one), used where the search meets a hundred thousand turns a move.  It
 * answers exactly what engine.turns.packed_results answers - the mover's
 * points after each distinct legal turn, in the same order - and
 * tests/ai/test_longcore.py holds the two equal on random and played
 * positions for every roll.  Without a C compiler the package installs
 * without it and the search uses the engine (ai/long_search.py).
 *
 * A row is the mover's checkers on its points 1..24 (24 bytes; index 0 is
 * point 1), each side in its own numbering: my point p is the opponent's
 * (p + 11) % 24 + 1.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#define POINTS 24
#define HEAD 24
#define HOME 6
#define CHECKERS 15
#define NONE 25 /* the neighbour past either end: r[NONE] is always 0 */
#define MAX_MOVES 32
/* Always inlined into its callers: into the pair loop's machine-specific
   copies (VECTOR_CLONES) too, where a bit count is one instruction. */
#define INLINE static inline __attribute__((always_inline))

/* The pair loop is compiled for three widths of vector (AVX-512, AVX2 with
   FMA, and the baseline) and the loader picks the machine's: GCC 12 or
   later names those levels, and glibc's loader picks (ifunc). */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && defined(__x86_64__) && \
    defined(__GLIBC__)
#define VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define VECTOR_CLONES
#endif
#ifdef __FAST_MATH__
#error "tanh_row rounds by adding 1.5 * 2^23, which -ffast-math would fold away"
#endif

static int THEIR[NONE + 1], UP[NONE + 1], DOWN[NONE + 1];

static void init_frame(void)
{
    /* blocks are counted along the opponent's path, so neighbours are taken
       in its numbers ("up": one of its points higher); its 24 and 1 are not
       neighbours */
    for (int p = 0; p <= NONE; p++) {
        THEIR[p] = 0;
        UP[p] = DOWN[p] = NONE;
    }
    for (int p = 1; p <= POINTS; p++)
        THEIR[p] = (p + 11) % 24 + 1;
    for (int p = 1; p <= POINTS; p++)
        for (int q = 1; q <= POINTS; q++) {
            if (THEIR[q] == THEIR[p] + 1)
                UP[p] = q;
            if (THEIR[q] == THEIR[p] - 1)
                DOWN[p] = q;
        }
}

/* ---- a set of rows, in the order first added ---- */

typedef struct {
    unsigned char *rows; /* size rows of width bytes */
    Py_ssize_t size, capacity;
    int32_t *table; /* open addressing: index into rows, or -1 */
    Py_ssize_t mask;
    int width;
} RowSet;

static int rowset_init(RowSet *s, int width, Py_ssize_t capacity)
{
    Py_ssize_t slots = 64;
    while (slots < 2 * capacity)
        slots *= 2;
    s->width = width;
    s->size = 0;
    s->capacity = capacity;
    s->rows = malloc((size_t)capacity * width);
    s->table = malloc(sizeof(int32_t) * (size_t)slots);
    s->mask = slots - 1;
    if (!s->rows || !s->table)
        return -1;
    memset(s->table, 0xff, sizeof(int32_t) * (size_t)slots);
    return 0;
}

static void rowset_free(RowSet *s)
{
    free(s->rows);
    free(s->table);
    s->rows = NULL;
    s->table = NULL;
}

static void rowset_clear(RowSet *s)
{
    s->size = 0;
    memset(s->table, 0xff, sizeof(int32_t) * (size_t)(s->mask + 1));
}

static uint64_t hash_bytes(const unsigned char *key, int width)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    int i = 0;
    for (; i + 8 <= width; i += 8) {
        uint64_t word;
        memcpy(&word, key + i, 8);
        h = (h ^ word) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    for (; i < width; i++)
        h = (h ^ key[i]) * 0x100000001b3ULL;
    h ^= h >> 29;
    return h;
}

static int rowset_grow(RowSet *s)
{
    Py_ssize_t capacity = 2 * s->capacity;
    unsigned char *rows = realloc(s->rows, (size_t)capacity * s->width);
    if (!rows)
        return -1;
    s->rows = rows;
    s->capacity = capacity;
    Py_ssize_t slots = 2 * (s->mask + 1);
    int32_t *table = malloc(sizeof(int32_t) * (size_t)slots);
    if (!table)
        return -1;
    memset(table, 0xff, sizeof(int32_t) * (size_t)slots);
    free(s->table);
    s->table = table;
    s->mask = slots - 1;
    for (Py_ssize_t i = 0; i < s->size; i++) {
        Py_ssize_t slot = (Py_ssize_t)(hash_bytes(s->rows + i * s->width, s->width) & (uint64_t)s->mask);
        while (table[slot] >= 0)
            slot = (slot + 1) & s->mask;
        table[slot] = (int32_t)i;
    }
    return 0;
}

/* The index of ``key`` in the set, added if new (*added says which); -1 when
   out of memory. */
static Py_ssize_t rowset_add(RowSet *s, const unsigned char *key, int *added)
{
    if (2 * (s->size + 1) > s->mask + 1 || s->size == s->capacity) {
        if (rowset_grow(s) < 0)
            return -1;
    }
    Py_ssize_t slot = (Py_ssize_t)(hash_bytes(key, s->width) & (uint64_t)s->mask);
    for (;;) {
        int32_t at = s->table[slot];
        if (at < 0)
            break;
        if (memcmp(s->rows + (Py_ssize_t)at * s->width, key, (size_t)s->width) == 0) {
            *added = 0;
            return at;
        }
        slot = (slot + 1) & s->mask;
    }
    memcpy(s->rows + s->size * s->width, key, (size_t)s->width);
    s->table[slot] = (int32_t)s->size;
    *added = 1;
    return s->size++;
}

/* ---- one turn ---- */

typedef struct {
    unsigned char opens[NONE + 1]; /* 1 where the opponent holds nothing (my numbers) */
    int opp_min;                   /* the opponent's rearmost point, its numbers; 0: no block rule */
    int head_limit;                /* checkers that may leave the head this turn */
    int head_start;                /* checkers on the head when the turn began */
} Turn;

/* A state: r[1..24] the mover's checkers; r[0] and r[NONE] stay 0. */
typedef unsigned char State[NONE + 1];

static void setup(Turn *t, const unsigned char *mover, const unsigned char *opp, int first, int die,
                  int is_double)
{
    unsigned char on[NONE + 1];
    int total = 0, lowest = 0;
    on[0] = on[NONE] = 0;
    for (int p = 1; p <= POINTS; p++) {
        on[p] = opp[THEIR[p] - 1];
        t->opens[p] = on[p] == 0;
    }
    t->opens[0] = t->opens[NONE] = 0;
    for (int i = 0; i < POINTS; i++) {
        total += opp[i];
        if (!lowest && opp[i])
            lowest = i + 1;
    }
    /* engine._movegen.rearmost: once a checker is off every block is legal */
    t->opp_min = total == CHECKERS ? lowest : 0;
    /* engine._movegen.head_limit */
    t->head_limit = 1;
    if (first && is_double && (die == 3 || die == 4 || die == 6)) {
        int point = HEAD;
        for (int i = 0; i < 4; i++) {
            point -= die;
            if (point < 1)
                break;
            if (on[point]) {
                t->head_limit = point == 12 ? 2 : 1;
                break;
            }
        }
    }
    t->head_start = mover[HEAD - 1];
}

/* Would the step source -> target (an empty point) make six or more points
   in a row that no opponent checker has passed?  (Generator._blocks) */
static int blocks(const Turn *t, const unsigned char *r, int source, int target)
{
    int vacated = r[source] == 1;
    int length = 1, low = target, p = UP[target];
    while (r[p] && !(vacated && p == source)) {
        length++;
        p = UP[p];
    }
    p = DOWN[target];
    while (r[p] && !(vacated && p == source)) {
        length++;
        low = p;
        p = DOWN[p];
    }
    return length >= 6 && t->opp_min >= THEIR[low];
}

/* The steps with ``die`` legal in state ``r`` (Generator.moves): sources and
   targets (0: off); returns how many. */
static int moves(const Turn *t, const unsigned char *r, int die, int *src, int *dst)
{
    int count = 0, outside = 0;
    int head_free = t->head_start - r[HEAD] < t->head_limit;
    for (int s = HEAD; s > die; s--) {
        if (!r[s] || (s == HEAD && !head_free))
            continue;
        int d = s - die;
        if (!t->opens[d])
            continue;
        if (t->opp_min && !r[d] && (r[UP[d]] || r[DOWN[d]]) && blocks(t, r, s, d))
            continue;
        src[count] = s;
        dst[count] = d;
        count++;
    }
    for (int p = HOME + 1; p <= POINTS; p++)
        outside += r[p];
    if (!outside) {
        if (r[die]) {
            src[count] = die;
            dst[count] = 0;
            count++;
        } else {
            int higher = 0;
            for (int p = die + 1; p <= HOME; p++)
                higher |= r[p];
            if (!higher)
                /* a die bigger than the highest checker bears that one off */
                for (int s = die - 1; s >= 1; s--)
                    if (r[s]) {
                        src[count] = s;
                        dst[count] = 0;
                        count++;
                        break;
                    }
        }
    }
    return count;
}

static void play(unsigned char *r, int source, int target)
{
    r[source]--;
    if (target)
        r[target]++;
}

static Py_ssize_t add_state(RowSet *s, const unsigned char *r)
{
    int added;
    return rowset_add(s, r + 1, &added);
}

static void load(unsigned char *r, const unsigned char *row24)
{
    r[0] = r[NONE] = 0;
    memcpy(r + 1, row24, POINTS);
}

typedef struct {
    RowSet a, b; /* the levels of a double's search; b: the results of two dice */
} Work;

/* A turn's results: ``size`` rows of 24 bytes. */
typedef struct {
    unsigned char *rows;
    Py_ssize_t size, capacity;
} Results;

static int results_reserve(Results *r, Py_ssize_t count)
{
    if (count <= r->capacity)
        return 0;
    Py_ssize_t capacity = r->capacity ? r->capacity : 64;
    while (capacity < count)
        capacity *= 2;
    unsigned char *rows = realloc(r->rows, (size_t)capacity * POINTS);
    if (!rows)
        return -1;
    r->rows = rows;
    r->capacity = capacity;
    return 0;
}

/* qsort's order of two rows (pointers to them): as their packed codes, read
   as little-endian ints, compare - the highest point first. */
static int code_order(const void *a, const void *b)
{
    const unsigned char *x = *(const unsigned char *const *)a, *y = *(const unsigned char *const *)b;
    for (int p = POINTS - 1; p >= 0; p--)
        if (x[p] != y[p])
            return (int)x[p] - (int)y[p];
    return 0;
}

/* Every distinct result of a turn with dice d1, d2 into ``out`` (rows of
   24), in the generator's order (engine.turns.packed_results; the position
   itself when nothing can be played).  Returns -1 when out of memory. */
static int turn_results(Work *w, const unsigned char *mover, const unsigned char *opp, int first,
                        int d1, int d2, Results *out)
{
    Turn t;
    State r, r1;
    int src[MAX_MOVES], dst[MAX_MOVES], src2[MAX_MOVES], dst2[MAX_MOVES];
    int high = d1 > d2 ? d1 : d2, low = d1 > d2 ? d2 : d1;
    setup(&t, mover, opp, first, high, high == low);
    load(r, mover);
    RowSet *found;
    if (high == low) {
        RowSet *level = &w->a, *frontier = &w->b;
        rowset_clear(level);
        if (add_state(level, r) < 0)
            return -1;
        for (int step = 0; step < 4; step++) {
            rowset_clear(frontier);
            for (Py_ssize_t i = 0; i < level->size; i++) {
                load(r, level->rows + i * POINTS);
                int n = moves(&t, r, high, src, dst);
                for (int k = 0; k < n; k++) {
                    memcpy(r1, r, sizeof(State));
                    play(r1, src[k], dst[k]);
                    if (add_state(frontier, r1) < 0)
                        return -1;
                }
            }
            if (!frontier->size)
                break;
            RowSet *swap = level;
            level = frontier;
            frontier = swap;
        }
        found = level; /* the start itself when nothing could be played */
    } else {
        found = &w->b;
        rowset_clear(found);
        int orders[2][2] = {{high, low}, {low, high}};
        for (int o = 0; o < 2; o++) {
            int n = moves(&t, r, orders[o][0], src, dst);
            for (int k = 0; k < n; k++) {
                memcpy(r1, r, sizeof(State));
                play(r1, src[k], dst[k]);
                int m = moves(&t, r1, orders[o][1], src2, dst2);
                for (int j = 0; j < m; j++) {
                    State r2;
                    memcpy(r2, r1, sizeof(State));
                    play(r2, src2[j], dst2[j]);
                    if (add_state(found, r2) < 0)
                        return -1;
                }
            }
        }
        if (!found->size) {
            /* not both dice: the larger one if it can be played, else the smaller */
            int n = moves(&t, r, high, src, dst);
            if (!n)
                n = moves(&t, r, low, src, dst);
            for (int k = 0; k < n; k++) {
                memcpy(r1, r, sizeof(State));
                play(r1, src[k], dst[k]);
                if (add_state(found, r1) < 0)
                    return -1;
            }
            if (!n && add_state(found, r) < 0)
                return -1;
        }
    }
    /* the order of engine.turns.packed_results: its codes as little-endian
       ints, so the highest point decides first */
    Py_ssize_t count = found->size;
    const unsigned char **order = malloc(sizeof(*order) * (size_t)(count ? count : 1));
    if (!order || results_reserve(out, count) < 0) {
        free(order);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++)
        order[i] = found->rows + i * POINTS;
    qsort(order, (size_t)count, sizeof(*order), code_order);
    for (Py_ssize_t i = 0; i < count; i++)
        memcpy(out->rows + i * POINTS, order[i], POINTS);
    out->size = count;
    free(order);
    return 0;
}

static int work_init(Work *w)
{
    return rowset_init(&w->a, POINTS, 256) < 0 || rowset_init(&w->b, POINTS, 256) < 0 ? -1 : 0;
}

static void work_free(Work *w)
{
    rowset_free(&w->a);
    rowset_free(&w->b);
}

/* ---- Python ---- */

static int read_row(Py_buffer *view, Py_ssize_t count, const char *name)
{
    if (view->len != count) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", name, view->len, count);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(results_doc,
             "results(mover, opponent, first_turn, die1, die2) -> bytes\n\n"
             "The mover's 24 points after each distinct legal turn, 24 bytes each, in\n"
             "the order of engine.turns.packed_results; the position itself when\n"
             "nothing can be played.  Rows are each side's points 1..24 in its own\n"
             "numbering (24 bytes).");

static PyObject *py_results(PyObject *self, PyObject *args)
{
    Py_buffer mover, opp;
    int first, d1, d2;
    if (!PyArg_ParseTuple(args, "y*y*pii", &mover, &opp, &first, &d1, &d2))
        return NULL;
    PyObject *result = NULL;
    Work w = {0};
    Results out = {0};
    if (read_row(&mover, POINTS, "mover") < 0 || read_row(&opp, POINTS, "opponent") < 0)
        goto done;
    if (d1 < 1 || d1 > 6 || d2 < 1 || d2 > 6) {
        PyErr_SetString(PyExc_ValueError, "dice are 1..6");
        goto done;
    }
    if (work_init(&w) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (turn_results(&w, mover.buf, opp.buf, first, d1, d2, &out) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyBytes_FromStringAndSize((const char *)out.rows, out.size * POINTS);
done:
    work_free(&w);
    free(out.rows);
    PyBuffer_Release(&mover);
    PyBuffer_Release(&opp);
    return result;
}

typedef struct {
    int32_t *data;
    Py_ssize_t size, capacity;
} Ints;

static int ints_push(Ints *v, int32_t value)
{
    if (v->size == v->capacity) {
        Py_ssize_t capacity = v->capacity ? 2 * v->capacity : 1024;
        int32_t *data = realloc(v->data, sizeof(int32_t) * (size_t)capacity);
        if (!data)
            return -1;
        v->data = data;
        v->capacity = capacity;
    }
    v->data[v->size++] = value;
    return 0;
}

static PyObject *ints_bytes(const Ints *v)
{
    return PyBytes_FromStringAndSize((const char *)v->data, v->size * (Py_ssize_t)sizeof(int32_t));
}

/* What a turn's results depend on (turn_results): the mover's row, the
   points the opponent holds, its rearmost point while all its checkers are
   on the board (0 else: setup's opp_min), the first turn, the dice. */
#define TURN_KEY (POINTS + 4 + 1 + 1 + 2)

static uint32_t held_bits(const unsigned char *n);

static void turn_key_of(unsigned char *key, const unsigned char *mover, const unsigned char *opp,
                        int first, int d1, int d2)
{
    uint32_t held = held_bits(opp);
    int total = 0;
    for (int i = 0; i < POINTS; i++)
        total += opp[i];
    memcpy(key, mover, POINTS);
    memcpy(key + POINTS, &held, 4);
    key[POINTS + 4] = total == CHECKERS && held ? (unsigned char)(__builtin_ctz(held) + 1) : 0;
    key[POINTS + 5] = (unsigned char)first;
    key[POINTS + 6] = (unsigned char)d1;
    key[POINTS + 7] = (unsigned char)d2;
}

PyDoc_STRVAR(replies_doc,
             "replies(movers, opponents, first_turns, rolls)\n"
             "-> (sources, where, bounds, live, kinds, kind)\n\n"
             "Every reply of the side to roll in N positions (``movers`` and\n"
             "``opponents``: N rows of 24 bytes; ``first_turns``: N bytes) to each\n"
             "roll of ``rolls`` (2 bytes a roll), as ai.long_search._replies needs\n"
             "them, each result against the same opponent once (an entry):\n"
             "``sources``, the position each entry came from (int32); ``where``,\n"
             "each roll's results of each live position in turn, as entries\n"
             "(int32); ``bounds``, where each roll's results start in ``where``\n"
             "(int32); ``live``, the positions whose opponent has checkers left\n"
             "(int32); ``kinds``, the distinct results whatever their opponent\n"
             "(24 bytes each), and ``kind``, which of them each entry is (int32).");

static PyObject *py_replies(PyObject *self, PyObject *args)
{
    Py_buffer movers, opps, firsts, rolls;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &movers, &opps, &firsts, &rolls))
        return NULL;
    PyObject *result = NULL;
    Work w = {0};
    Results out = {0};
    RowSet seen = {0}, kinds = {0}, groups = {0}, turns = {0};
    Ints sources = {0}, where = {0}, bounds = {0}, live = {0}, kind = {0};
    Ints turn_start = {0}, turn_count = {0}, turn_kinds = {0};
    Py_ssize_t count = firsts.len;
    Py_ssize_t nrolls = rolls.len / 2;
    const unsigned char *dice = rolls.buf;
    if (read_row(&movers, count * POINTS, "movers") < 0 ||
        read_row(&opps, count * POINTS, "opponents") < 0 || read_row(&rolls, 2 * nrolls, "rolls") < 0)
        goto done;
    for (Py_ssize_t i = 0; i < 2 * nrolls; i++)
        if (dice[i] < 1 || dice[i] > 6) {
            PyErr_SetString(PyExc_ValueError, "dice are 1..6");
            goto done;
        }
    if (work_init(&w) < 0 || rowset_init(&seen, 2 * sizeof(int32_t), 4096) < 0 ||
        rowset_init(&kinds, POINTS, 1024) < 0 || rowset_init(&groups, POINTS, 64) < 0 ||
        rowset_init(&turns, TURN_KEY, 1024) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        const unsigned char *mover = (const unsigned char *)movers.buf + i * POINTS;
        const unsigned char *opp = (const unsigned char *)opps.buf + i * POINTS;
        int any = 0, fresh;
        for (int p = 0; p < POINTS; p++)
            any |= opp[p];
        if (!any)
            continue;
        if (ints_push(&live, (int32_t)i) < 0)
            goto nomemory;
        /* a reply is met again only against the same opponent: the key is
           (the opponent's row, the reply's row) by their numbers in the sets */
        int32_t key[2];
        Py_ssize_t group = rowset_add(&groups, opp, &fresh);
        if (group < 0)
            goto nomemory;
        key[0] = (int32_t)group;
        for (Py_ssize_t k = 0; k < nrolls; k++) {
            if (ints_push(&bounds, (int32_t)where.size) < 0)
                goto nomemory;
            /* the turns depend on the opponent only through the points it
               holds and its rearmost checker (the block rule): a mover met
               again against the same has its turns generated once (in a
               3-ply look some 44% of the calls) */
            int first = ((const unsigned char *)firsts.buf)[i] != 0;
            unsigned char turn_key[TURN_KEY];
            turn_key_of(turn_key, mover, opp, first, dice[2 * k], dice[2 * k + 1]);
            Py_ssize_t known = rowset_add(&turns, turn_key, &fresh);
            if (known < 0)
                goto nomemory;
            if (fresh) {
                if (turn_results(&w, mover, opp, first, dice[2 * k], dice[2 * k + 1], &out) < 0 ||
                    ints_push(&turn_start, (int32_t)turn_kinds.size) < 0 ||
                    ints_push(&turn_count, (int32_t)out.size) < 0)
                    goto nomemory;
                for (Py_ssize_t j = 0; j < out.size; j++) {
                    Py_ssize_t sort = rowset_add(&kinds, out.rows + j * POINTS, &fresh);
                    if (sort < 0 || ints_push(&turn_kinds, (int32_t)sort) < 0)
                        goto nomemory;
                }
            }
            int32_t from = turn_start.data[known], results = turn_count.data[known];
            for (int32_t j = 0; j < results; j++) {
                int added;
                Py_ssize_t sort = turn_kinds.data[from + j];
                key[1] = (int32_t)sort;
                Py_ssize_t at = rowset_add(&seen, (const unsigned char *)key, &added);
                if (at < 0 || ints_push(&where, (int32_t)at) < 0)
                    goto nomemory;
                if (added && (ints_push(&sources, (int32_t)i) < 0 ||
                              ints_push(&kind, (int32_t)sort) < 0))
                    goto nomemory;
            }
        }
    }
    result = Py_BuildValue("(NNNNNN)", ints_bytes(&sources), ints_bytes(&where),
                           ints_bytes(&bounds), ints_bytes(&live),
                           PyBytes_FromStringAndSize((const char *)kinds.rows, kinds.size * POINTS),
                           ints_bytes(&kind));
    goto done;
nomemory:
    PyErr_NoMemory();
done:
    work_free(&w);
    free(out.rows);
    rowset_free(&seen);
    rowset_free(&kinds);
    rowset_free(&groups);
    rowset_free(&turns);
    free(turn_start.data);
    free(turn_count.data);
    free(turn_kinds.data);
    free(kind.data);
    free(sources.data);
    free(where.data);
    free(bounds.data);
    free(live.data);
    PyBuffer_Release(&movers);
    PyBuffer_Release(&opps);
    PyBuffer_Release(&firsts);
    PyBuffer_Release(&rolls);
    return result;
}

/* ---- the net's features (ai.long_features) ---- */

#define SIDE 91        /* per side: 24 x 3 occupancy and 19 more */
#define SIZE 184       /* both sides and the 2 shared */
#define WIDE_SIZE 194  /* and 5 block inputs per side */
#define ALL 0xFFFFFF
#define NO_WRAP (ALL & ~(1 << 12))

INLINE int longest_run(uint32_t held, int cap, uint32_t joined)
{
    int best = 0;
    uint32_t run = held;
    for (int i = 0; i < cap && run; i++) {
        best++;
        run = run & (run << 1) & joined;
    }
    return best;
}

static uint32_t held_bits(const unsigned char *n)
{
    uint32_t bits = 0;
    for (int i = 0; i < POINTS; i++)
        if (n[i])
            bits |= 1u << i;
    return bits;
}

static int pips_of(const unsigned char *n)
{
    int pips = 0;
    for (int i = 0; i < POINTS; i++)
        pips += n[i] * (i + 1);
    return pips;
}

/* The features are built from two parts, so that the search can value
   many pairs of rows that share their rows (ai.long_net.LongNet.probs_shared:
   in a 2- or 3-ply look each row meets some 20 others) with the first layer
   summed per row once:

   - own (OWN per row): what a side's features read of its own checkers
     alone - the occupancy, pips, off, home, entry, run, spread, points in
     the other's home, start quarter, stack, and pips / 100 for the lead;
   - cross (CROSS or WIDE_CROSS per pair): what reads both sides - each
     side's mars margin (before its gate: nothing of mine off) and mobility,
     the race, and the blocks.

   features_of assembles the features from them, so the two cannot differ. */
#define OWN 85
#define CROSS 15
#define WIDE_CROSS 25
#define SIDE_CROSS 7

static void own_of(double *o, const unsigned char *n)
{
    int pips = 0, on = 0, home = 0, entry = 0, quarter = 0, stack = 0;
    uint32_t bits = 0;
    for (int i = 0; i < POINTS; i++) {
        int c = n[i];
        o[i] = c > 0;
        o[POINTS + i] = c >= 2;
        o[2 * POINTS + i] = (c > 2 ? c - 2 : 0) / 13.0;
        pips += c * (i + 1);
        on += c;
        if (c)
            bits |= 1u << i;
        if (i < 6)
            home += c;
        else
            entry += c * (i + 1 - 6);
        if (i >= 18)
            quarter += c;
        if (i < 23 && c > 3)
            stack += c - 3;
    }
    double *s = o + 3 * POINTS;
    s[0] = pips / 360.0;
    s[1] = (CHECKERS - on) / 15.0;
    s[2] = on < CHECKERS;
    s[3] = home / 15.0;
    s[4] = entry == 0;
    s[5] = n[23] / 15.0;
    s[6] = entry / 100.0;
    s[7] = longest_run(bits, 8, NO_WRAP) / 6.0;
    s[8] = __builtin_popcount(bits) / 12.0;
    s[9] = __builtin_popcount(bits & 0x3F000) / 6.0;
    s[10] = quarter / 15.0;
    s[11] = stack / 15.0;
    s[12] = pips / 100.0;
}

static int entry_of(const unsigned char *n)
{
    int entry = 0;
    for (int i = 6; i < POINTS; i++)
        entry += n[i] * (i + 1 - 6);
    return entry;
}

/* One side's cross part: ``bits`` its held points, ``entry`` its pips to
   bring home, ``seen`` the other side's points in its numbering. */
INLINE void side_cross(double *c, uint32_t bits, int entry, uint32_t seen, int other_pips)
{
    double margin = (double)(other_pips - entry) / 60.0;
    c[0] = margin < -3 ? -3 : margin > 3 ? 3 : margin;
    uint32_t free_points = ~seen & ALL;
    for (int die = 1; die <= 6; die++)
        c[die] = __builtin_popcount(bits & (free_points << die)) / 8.0;
}

/* Checkers on each point and above it (``above[i]``: on points i + 1..24). */
static void above_of(int *above, const unsigned char *n)
{
    above[POINTS] = 0;
    for (int i = POINTS - 1; i >= 0; i--)
        above[i] = above[i + 1] + n[i];
}

/* One side's 5 block features (ai.long_features._blocks); ``above`` from above_of. */
INLINE void block_features(double *f, const unsigned char *n, const int *above, uint32_t bits,
                           uint32_t seen)
{
    uint32_t starts = seen;
    int k = 0;
    for (int length = 2; length <= 6; length++) {
        starts &= seen >> (length - 1);
        if (length < 4)
            continue;
        int top = starts ? __builtin_ctz(starts) + length : POINTS;
        f[k++] = above[top] / 15.0;
    }
    uint32_t below = bits ? (1u << (31 - __builtin_clz(bits))) - 1 : 0;
    f[k++] = longest_run(seen & below, POINTS, ALL) / 6.0;
    int pressed = 0;
    for (uint32_t outside = bits & ~0x3Fu; outside; outside &= outside - 1) {
        int i = __builtin_ctz(outside);
        /* the other side's points among the six in front of point i + 1 */
        int ahead = __builtin_popcount(seen & (((1u << i) - 1) & ~((1u << (i - 6)) - 1)));
        pressed += n[i] * ahead * ahead;
    }
    f[k] = pressed / (36.0 * 15.0);
}

/* What the cross part needs of a row, computed once per row. */
typedef struct {
    int32_t ready; /* 0 in a zeroed buffer: not yet filled */
    uint32_t bits;
    int32_t pips, entry, behind;
    int32_t above[POINTS + 1];
} Side;

static void side_of(Side *side, const unsigned char *n)
{
    side->ready = 1;
    side->bits = held_bits(n);
    side->pips = pips_of(n);
    side->entry = entry_of(n);
    side->behind = (side->bits >> 12) != 0;
    above_of(side->above, n);
}

/* The cross part of a pair (my margin and mobility, the opponent's, the
   race; with ``wide`` the two sides' blocks). */
INLINE void cross_sides(double *c, const unsigned char *n_me, const Side *me,
                        const unsigned char *n_opp, const Side *opp, int wide)
{
    /* each side's view of the other's points: my point p is its p + 12 or p - 12 */
    uint32_t seen_by_me = ((opp->bits >> 12) | (opp->bits << 12)) & ALL;
    uint32_t seen_by_them = ((me->bits >> 12) | (me->bits << 12)) & ALL;
    side_cross(c, me->bits, me->entry, seen_by_me, opp->pips);
    side_cross(c + SIDE_CROSS, opp->bits, opp->entry, seen_by_them, me->pips);
    c[2 * SIDE_CROSS] = !(me->behind | opp->behind);
    if (wide) {
        block_features(c + CROSS, n_me, me->above, me->bits, seen_by_me);
        block_features(c + CROSS + 5, n_opp, opp->above, opp->bits, seen_by_them);
    }
}

static void cross_of(double *c, const unsigned char *me, const unsigned char *opp, int wide)
{
    Side mine, theirs;
    side_of(&mine, me);
    side_of(&theirs, opp);
    cross_sides(c, me, &mine, opp, &theirs, wide);
}

/* A side's 91 features from its own and cross parts: the margin counts
   only while none of its checkers is off. */
static void side_features(double *f, const double *o, const double *c)
{
    memcpy(f, o, sizeof(double) * (3 * POINTS + 7));
    double *s = f + 3 * POINTS;
    s[7] = o[3 * POINTS + 2] ? 0.0 : c[0];
    memcpy(s + 8, c + 1, sizeof(double) * 6);
    memcpy(s + 14, o + 3 * POINTS + 7, sizeof(double) * 5);
}

static void features_of(double *f, const unsigned char *me, const unsigned char *opp, int size)
{
    double mine[OWN], theirs[OWN], c[WIDE_CROSS];
    own_of(mine, me);
    own_of(theirs, opp);
    cross_of(c, me, opp, size == WIDE_SIZE);
    side_features(f, mine, c);
    side_features(f + SIDE, theirs, c + SIDE_CROSS);
    f[2 * SIDE] = c[2 * SIDE_CROSS];
    f[2 * SIDE + 1] = (pips_of(opp) - pips_of(me)) / 100.0;
    if (size == WIDE_SIZE)
        memcpy(f + SIZE, c + CROSS, sizeof(double) * 10);
}

/* Row ``i`` of ``size`` values into a float32 (wide 4) or float64 (wide 8) buffer. */
static void store(void *out, int wide, Py_ssize_t i, int size, const double *row)
{
    if (wide == 8)
        memcpy((double *)out + i * size, row, sizeof(double) * size);
    else
        for (int k = 0; k < size; k++)
            ((float *)out)[i * size + k] = (float)row[k];
}

PyDoc_STRVAR(features_doc,
             "features(me, opponent, out)\n\n"
             "ai.long_features.features of N pairs of rows (24 bytes each, each side\n"
             "in its own numbering) into ``out``, a writable buffer of N x 184 or\n"
             "N x 194 float64 or float32 values (its length says which); equal to it\n"
             "bit for bit: every feature is an integer count divided once.");

static PyObject *py_features(PyObject *self, PyObject *args)
{
    Py_buffer me, opp, out;
    if (!PyArg_ParseTuple(args, "y*y*w*", &me, &opp, &out))
        return NULL;
    PyObject *result = NULL;
    double row[WIDE_SIZE];
    Py_ssize_t count = me.len / POINTS;
    if (read_row(&me, count * POINTS, "me") < 0 || read_row(&opp, count * POINTS, "opponent") < 0)
        goto done;
    /* the row's size and the values' width, from the buffer's length */
    int size = 0, wide = 0;
    for (int s = SIZE; s <= WIDE_SIZE; s += WIDE_SIZE - SIZE)
        for (int w = 4; w <= 8; w += 4)
            if (out.len == count * s * w)
                size = s, wide = w;
    if (!size || !count) {
        if (!count && !out.len) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        PyErr_Format(PyExc_ValueError, "out: %zd bytes, not %zd rows of %d or %d float32 or float64",
                     out.len, count, SIZE, WIDE_SIZE);
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        features_of(row, (const unsigned char *)me.buf + i * POINTS,
                    (const unsigned char *)opp.buf + i * POINTS, size);
        store(out.buf, wide, i, size, row);
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&me);
    PyBuffer_Release(&opp);
    PyBuffer_Release(&out);
    return result;
}

PyDoc_STRVAR(own_doc,
             "own(rows, out)\n\n"
             "The own part of N rows' features (24 bytes each, own numbering) into\n"
             "``out``, N x 85 float32 or float64: the 72 occupancy inputs, pips, off,\n"
             "any off, home, all home, head, entry, run, spread, points in the\n"
             "other's home, start quarter, stack, and pips / 100 (the lead's share).");

static PyObject *py_own(PyObject *self, PyObject *args)
{
    Py_buffer rows, out;
    if (!PyArg_ParseTuple(args, "y*w*", &rows, &out))
        return NULL;
    PyObject *result = NULL;
    double row[OWN];
    Py_ssize_t count = rows.len / POINTS;
    if (read_row(&rows, count * POINTS, "rows") < 0)
        goto done;
    int wide = out.len == count * OWN * 4 ? 4 : out.len == count * OWN * 8 ? 8 : 0;
    if (!wide && count) {
        PyErr_Format(PyExc_ValueError, "out: %zd bytes, not %zd rows of %d float32 or float64",
                     out.len, count, OWN);
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        own_of(row, (const unsigned char *)rows.buf + i * POINTS);
        store(out.buf, wide, i, OWN, row);
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&rows);
    PyBuffer_Release(&out);
    return result;
}

/* ---- the rest of the net, pair by pair ---- */

#define OUTPUTS 5
#define MOST_HIDDEN 1024
#define MOST_INPUTS 128 /* a part's inputs: OWN, CROSS or WIDE_CROSS */
/* The compiler's vector types: 16 floats (one AVX-512 register, two AVX2,
   four SSE ones), 8 floats, 8 doubles. */
#define LANES 16
typedef float Floats __attribute__((vector_size(LANES * sizeof(float))));
typedef float Floats8 __attribute__((vector_size(8 * sizeof(float))));
typedef double Doubles __attribute__((vector_size(8 * sizeof(double))));

/* the vector of ``type`` at ``at``, aligned or not */
#define VECTOR_AT(type, at) \
    __extension__({ \
        type vector_; \
        memcpy(&vector_, (at), sizeof vector_); \
        vector_; \
    })

/* tanh of the first layer's sums, in place: tanh |x| = -m / (2 + m) with
   m = e - 1, e = exp(-2 |x|), exp by 2^k times a polynomial of the
   remainder r (|r| <= ln 2 / 2; its degree-7 Taylor sum is within 1e-8),
   m kept apart from the 1 so that a small |x| keeps its digits.  Within
   a few float32 steps of tanh; NaN stays NaN.  |x| is clamped to 9 (where
   tanh is 1 in float32) on its bits: a float comparison would keep the
   compiler from vectorizing the loop (it may trap). */
INLINE void tanh_row(float *restrict h, int hidden)
{
    const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    const int32_t nine = 0x41100000; /* 9.0f */
    float less_one[MOST_HIDDEN];     /* the polynomial minus 1 */
    int32_t bits[MOST_HIDDEN];
    float scale[MOST_HIDDEN];
    for (int j = 0; j < hidden; j++) {
        int32_t ia;
        memcpy(&ia, h + j, sizeof ia);
        ia &= 0x7fffffff;
        ia = ia < nine ? ia : nine;
        float a;
        memcpy(&a, &ia, sizeof a);
        float y = -2.0f * a;
        float k = (y * 1.44269504f + magic) - magic;
        float r = (y - k * 0.693145752f) - k * 1.42860677e-6f;
        float q = 1.0f / 5040;
        q = q * r + 1.0f / 720;
        q = q * r + 1.0f / 120;
        q = q * r + 1.0f / 24;
        q = q * r + 1.0f / 6;
        q = q * r + 0.5f;
        q = q * r + 1.0f;
        less_one[j] = q * r;
        bits[j] = ((int32_t)k + 127) << 23;
    }
    memcpy(scale, bits, sizeof(float) * (size_t)hidden); /* 2^k */
    for (int j = 0; j < hidden; j++) {
        float s = scale[j];
        float m = s * less_one[j] + (s - 1.0f);
        float t = copysignf(-m / (2.0f + m), h[j]);
        h[j] = h[j] != h[j] ? h[j] : t;
    }
}

/* ``h = a + b + x @ weights`` for one row ``x`` of ``width`` inputs
   (``weights``: width x hidden), the inputs that are zero skipped (most of
   a row's are).  Eight vectors of sums at a time (128), kept in registers
   across the inputs: eight sums in flight hide an addition's latency. */
INLINE void sparse_sum(float *restrict h, const float *restrict a, const float *restrict b,
                       const float *restrict x, int width, const float *restrict weights,
                       int hidden)
{
    int nonzero[MOST_INPUTS], count = 0;
    for (int k = 0; k < width; k++)
        if (x[k] != 0.0f)
            nonzero[count++] = k;
    int j = 0;
    for (; j + 8 * LANES <= hidden; j += 8 * LANES) {
        Floats s[8];
        for (int v = 0; v < 8; v++)
            s[v] = VECTOR_AT(Floats, a + j + v * LANES) + VECTOR_AT(Floats, b + j + v * LANES);
        for (int i = 0; i < count; i++) {
            float c = x[nonzero[i]];
            const float *w = weights + (Py_ssize_t)nonzero[i] * hidden + j;
            for (int v = 0; v < 8; v++)
                s[v] += c * VECTOR_AT(Floats, w + v * LANES);
        }
        memcpy(h + j, s, sizeof s);
    }
    for (; j < hidden; j++) {
        float sum = a[j] + b[j];
        for (int i = 0; i < count; i++)
            sum += x[nonzero[i]] * weights[(Py_ssize_t)nonzero[i] * hidden + j];
        h[j] = sum;
    }
}

/* The estimates of one pair: the first layer's sums are the two rows'
   shares plus the cross part times its weights (float32), then tanh, then
   the second layer in float64 and the sigmoid.  Each in one fixed order,
   so that a position's value does not depend on what it was valued with
   (numpy's products do: their order follows the batch's shape). */
INLINE void pair_probs(double *restrict out, const float *restrict share_me,
                       const float *restrict share_opp, const float *restrict cross, int width,
                       const float *restrict weights, const double *restrict second,
                       const double *restrict bias, int hidden)
{
    float h[MOST_HIDDEN];
    sparse_sum(h, share_me, share_opp, cross, width, weights, hidden);
    tanh_row(h, hidden);
    /* the second layer's five sums side by side, each in 8 lanes */
    Doubles lanes[OUTPUTS] = {0};
    int j = 0;
    for (; j + 8 <= hidden; j += 8) {
        Doubles x = __builtin_convertvector(VECTOR_AT(Floats8, h + j), Doubles);
        for (int o = 0; o < OUTPUTS; o++)
            lanes[o] += x * VECTOR_AT(Doubles, second + (Py_ssize_t)o * hidden + j);
    }
    for (int o = 0; o < OUTPUTS; o++) {
        double sum = ((lanes[o][0] + lanes[o][1]) + (lanes[o][2] + lanes[o][3])) +
                     ((lanes[o][4] + lanes[o][5]) + (lanes[o][6] + lanes[o][7]));
        for (int t = j; t < hidden; t++)
            sum += (double)h[t] * second[(Py_ssize_t)o * hidden + t];
        out[o] = 1.0 / (1.0 + exp(-(sum + bias[o])));
    }
}

/* The estimates of ``count`` pairs (py_pairs), each row's counts kept in
   ``mine`` and ``theirs`` once computed. */
VECTOR_CLONES
static void pairs_loop(double *out, Py_ssize_t count, const int64_t *at_me,
                       const int64_t *at_opp, const unsigned char *rows_me,
                       const unsigned char *rows_opp, Side *mine, Side *theirs,
                       const float *gate_me, const float *gate_opp, const float *share_me,
                       const float *share_opp, int width, const float *weights,
                       const double *second, const double *bias, int hidden)
{
    double row[WIDE_CROSS];
    float cross[WIDE_CROSS];
    for (Py_ssize_t k = 0; k < count; k++) {
        int64_t a = at_me[k], b = at_opp[k];
        const unsigned char *n_me = rows_me + a * POINTS, *n_opp = rows_opp + b * POINTS;
        if (!mine[a].ready)
            side_of(&mine[a], n_me);
        if (!theirs[b].ready)
            side_of(&theirs[b], n_opp);
        cross_sides(row, n_me, &mine[a], n_opp, &theirs[b], width == WIDE_CROSS);
        row[0] *= gate_me[a];
        row[SIDE_CROSS] *= gate_opp[b];
        for (int i = 0; i < width; i++)
            cross[i] = (float)row[i];
        pair_probs(out + k * OUTPUTS, share_me + a * hidden, share_opp + b * hidden, cross,
                   width, weights, second, bias, hidden);
    }
}

PyDoc_STRVAR(pairs_doc,
             "pairs(me, me_index, opponent, opp_index, me_gate, opp_gate, me_first,\n"
             "      opp_first, cross, second, bias, out)\n\n"
             "The net's five estimates for N pairs (me[me_index[k]],\n"
             "opponent[opp_index[k]]) of distinct rows (24 bytes each; the indices\n"
             "int64) into ``out`` (N x 5 float64).  The first layer's sums are the\n"
             "two rows' shares, ``me_first`` and ``opp_first`` (float32, H per row,\n"
             "the bias in one of them; H <= MOST_HIDDEN), plus the pair's cross part\n"
             "(each side's mars margin times its row's gate, float32 per row) times\n"
             "``cross`` (15 or 25 x H float32, its length says which); then tanh,\n"
             "the second layer ``second`` (5 x H float64, an output's weights per\n"
             "row) plus ``bias`` (5 float64), the sigmoid.");

static PyObject *py_pairs(PyObject *self, PyObject *args)
{
    Py_buffer me, mi, opp, oi, mg, og, mf, of, cw, sw, sb, out;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*w*", &me, &mi, &opp, &oi, &mg, &og, &mf,
                          &of, &cw, &sw, &sb, &out))
        return NULL;
    PyObject *result = NULL;
    Side *mine = NULL, *theirs = NULL;
    Py_ssize_t nme = me.len / POINTS, nopp = opp.len / POINTS, count = mi.len / 8;
    Py_ssize_t hidden = sw.len / 8 / OUTPUTS;
    int width = cw.len == hidden * CROSS * 4 ? CROSS
                : cw.len == hidden * WIDE_CROSS * 4 ? WIDE_CROSS : 0;
    if (read_row(&me, nme * POINTS, "me") < 0 || read_row(&opp, nopp * POINTS, "opponent") < 0)
        goto done;
    if (oi.len != mi.len || mi.len % 8 || mg.len != nme * 4 || og.len != nopp * 4 ||
        !hidden || hidden > MOST_HIDDEN || sw.len != hidden * OUTPUTS * 8 ||
        sb.len != OUTPUTS * 8 || !width || mf.len != nme * hidden * 4 ||
        of.len != nopp * hidden * 4 || out.len != count * OUTPUTS * 8) {
        PyErr_SetString(PyExc_ValueError,
                        "pairs: the indices, gates, shares, weights or out do not fit");
        goto done;
    }
    const int64_t *at_me = mi.buf, *at_opp = oi.buf;
    for (Py_ssize_t k = 0; k < count; k++)
        if (at_me[k] < 0 || at_me[k] >= nme || at_opp[k] < 0 || at_opp[k] >= nopp) {
            PyErr_SetString(PyExc_IndexError, "pairs: an index out of its rows");
            goto done;
        }
    /* each row's counts for the cross part, computed when first met */
    mine = PyMem_Calloc((size_t)nme + 1, sizeof(Side));
    theirs = PyMem_Calloc((size_t)nopp + 1, sizeof(Side));
    if (!mine || !theirs) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    pairs_loop(out.buf, count, at_me, at_opp, me.buf, opp.buf, mine, theirs, mg.buf, og.buf,
               mf.buf, of.buf, width, cw.buf, sw.buf, sb.buf, (int)hidden);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&me);
    PyBuffer_Release(&mi);
    PyBuffer_Release(&opp);
    PyBuffer_Release(&oi);
    PyBuffer_Release(&mg);
    PyBuffer_Release(&og);
    PyBuffer_Release(&mf);
    PyBuffer_Release(&of);
    PyMem_Free(mine);
    PyMem_Free(theirs);
    PyBuffer_Release(&cw);
    PyBuffer_Release(&sw);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&out);
    return result;
}

/* Each row's share of the first layer (py_shares). */
VECTOR_CLONES
static void shares_loop(float *out, Py_ssize_t count, const float *rows, int width,
                        const float *weights, const float *bias, int hidden)
{
    static const float zeros[MOST_HIDDEN];
    for (Py_ssize_t i = 0; i < count; i++)
        sparse_sum(out + i * hidden, bias, zeros, rows + i * width, width, weights, hidden);
}

PyDoc_STRVAR(shares_doc,
             "shares(rows, weights, bias, out)\n\n"
             "``rows @ weights + bias`` into ``out`` (N x H float32) for N rows of\n"
             "W float32 inputs (a part of the features: W <= 128), ``weights`` W x H\n"
             "float32, ``bias`` H float32: each row's share of the first layer, in\n"
             "one fixed order per row (as ``pairs`` sums), whatever the batch.");

static PyObject *py_shares(PyObject *self, PyObject *args)
{
    Py_buffer rows, weights, bias, out;
    if (!PyArg_ParseTuple(args, "y*y*y*w*", &rows, &weights, &bias, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t hidden = bias.len / 4;
    Py_ssize_t width = hidden ? weights.len / 4 / hidden : 0;
    Py_ssize_t count = width ? rows.len / 4 / width : 0;
    if (!hidden || hidden > MOST_HIDDEN || !width || width > MOST_INPUTS ||
        bias.len % 4 || weights.len != width * hidden * 4 || rows.len != count * width * 4 ||
        out.len != count * hidden * 4) {
        PyErr_SetString(PyExc_ValueError, "shares: the rows, weights, bias or out do not fit");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    shares_loop(out.buf, count, rows.buf, (int)width, weights.buf, bias.buf, (int)hidden);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&rows);
    PyBuffer_Release(&weights);
    PyBuffer_Release(&bias);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"results", py_results, METH_VARARGS, results_doc},
    {"replies", py_replies, METH_VARARGS, replies_doc},
    {"features", py_features, METH_VARARGS, features_doc},
    {"own", py_own, METH_VARARGS, own_doc},
    {"pairs", py_pairs, METH_VARARGS, pairs_doc},
    {"shares", py_shares, METH_VARARGS, shares_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ai._longcore",
    "The long nardy move generator in C, for the search: a mirror of the engine's, held equal to it "
    "by tests (ai/_longcore.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__longcore(void)
{
    init_frame();
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "MOST_HIDDEN", MOST_HIDDEN) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
