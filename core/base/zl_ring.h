/* zl_ring.h - fixed-capacity rings with free-running counters and sequence
 * buffers keyed by 16-bit wrapping sequence numbers. Storage is the caller's.
 * Not part of the API (docs/ARCHITECTURE.md): public because the endpoints'
 * structs, which the application allocates, embed its rings; it calls none of
 * it. */
#ifndef ZL_RING_H
#define ZL_RING_H

#include "zl_base.h"

ZL_BEGIN_DECLS

/* 16-bit sequence numbers wrap; "newer" means ahead by less than half the
 * space. zl_seq_diff(a, b) is a - b as a signed value in [-32768, 32767]. */
static inline int32_t zl_seq_diff(uint16_t a, uint16_t b)
{
    uint16_t d = (uint16_t)(a - b);
    return d < 0x8000u ? (int32_t)d : (int32_t)d - 0x10000;
}
static inline int zl_seq_newer(uint16_t a, uint16_t b) { return zl_seq_diff(a, b) > 0; }
/* The same for 32-bit sequences (commands). */
static inline int zl_seq32_newer(uint32_t a, uint32_t b)
{
    return a != b && (uint32_t)(a - b) < 0x80000000u;
}

/* FIFO ring of N items (N a power of two, checked at compile time).
 * head and tail count pushes and pops forever; unsigned wrap keeps
 * head - tail correct, and the slot is counter & (N - 1).
 *   ZL_RING_TYPE(my_ring, my_item, 64);
 *   static my_ring r;        // zero-initialised is empty
 */
#define ZL_RING_TYPE(Name, Type, N)                        \
    typedef struct Name {                                  \
        uint32_t head, tail;                               \
        Type item[N];                                      \
    } Name;                                                \
    ZL_STATIC_ASSERT(ZL_IS_POW2(N), Name##_capacity_pow2)

/* Capacity N, items held now, and whether that is none or N. */
#define ZL_RING_CAPACITY(r) ((uint32_t)ZL_COUNTOF((r)->item))
#define ZL_RING_COUNT(r) ((uint32_t)((r)->head - (r)->tail))
#define ZL_RING_EMPTY(r) ((r)->head == (r)->tail)
#define ZL_RING_FULL(r) (ZL_RING_COUNT(r) == ZL_RING_CAPACITY(r))
/* Slot for the i-th item counting from the oldest (i < count). */
#define ZL_RING_AT(r, i) (&(r)->item[((r)->tail + (uint32_t)(i)) & (ZL_RING_CAPACITY(r) - 1u)])
/* Slot the next push fills; valid only when not full. Then ZL_RING_COMMIT. */
#define ZL_RING_NEXT(r) (&(r)->item[(r)->head & (ZL_RING_CAPACITY(r) - 1u)])
#define ZL_RING_COMMIT(r) ((void)((r)->head++))
/* Drops the oldest item; valid only when not empty. */
#define ZL_RING_POP(r) ((void)((r)->tail++))
/* Drops every item. */
#define ZL_RING_CLEAR(r) ((void)((r)->tail = (r)->head))

/* Sequence buffer: N slots (a power of two, at most 32768) each tagged with
 * the sequence stored in it, or ZL_SEQ_EMPTY. The window is the N sequences
 * ending at the newest one inserted. Inserting a sequence newer than any
 * seen clears the slots it skips, so stale entries never answer a lookup; a
 * sequence older than the window is refused. "Newer" is zl_seq_newer, so a
 * jump of 32768 or more looks old and is refused.
 *   ZL_SEQBUF_TYPE(acks, my_entry, 256);
 *   static acks b;
 *   ZL_SEQBUF_RESET(&b);   // required: a zeroed buffer would hold seq 0
 */
#define ZL_SEQ_EMPTY 0xFFFFFFFFu

#define ZL_SEQBUF_TYPE(Name, Type, N)                                  \
    typedef struct Name {                                              \
        zl_seqbuf_head head;                                           \
        uint32_t tag[N];                                               \
        Type item[N];                                                  \
    } Name;                                                            \
    ZL_STATIC_ASSERT(ZL_IS_POW2(N) && (N) <= 32768, Name##_capacity_pow2)

/* Bookkeeping shared by every sequence buffer; private. */
typedef struct zl_seqbuf_head {
    uint16_t next; /* one past the newest sequence inserted */
    uint8_t started;
} zl_seqbuf_head;

/* Generic operations over the tag array (n slots, a power of two at most
 * 32768); use the macros below. */
/* Empties every slot; the next insert, whatever its sequence, starts the
 * window. */
void zl_seqbuf_reset_(zl_seqbuf_head *h, uint32_t *tag, uint32_t n);
/* Index of the slot now holding seq, or ZL_ERR_INVALID when seq is older
 * than the window (newest - n + 1 is the oldest accepted). Re-inserting a
 * sequence in the window just takes its slot again; a newer one becomes the
 * newest. The slot's item keeps its old bytes: the caller fills it. */
int zl_seqbuf_insert_(zl_seqbuf_head *h, uint32_t *tag, uint32_t n, uint16_t seq);
/* Index of the slot holding seq, or -1 when it is not stored. */
int zl_seqbuf_find_(const uint32_t *tag, uint32_t n, uint16_t seq);
/* Empties the slot of seq if it holds seq; otherwise does nothing. The
 * window does not move. */
void zl_seqbuf_remove_(uint32_t *tag, uint32_t n, uint16_t seq);

#define ZL_SEQBUF_RESET(b) zl_seqbuf_reset_(&(b)->head, (b)->tag, (uint32_t)ZL_COUNTOF((b)->tag))
#define ZL_SEQBUF_INSERT(b, seq) \
    zl_seqbuf_insert_(&(b)->head, (b)->tag, (uint32_t)ZL_COUNTOF((b)->tag), (seq))
#define ZL_SEQBUF_FIND(b, seq) zl_seqbuf_find_((b)->tag, (uint32_t)ZL_COUNTOF((b)->tag), (seq))
#define ZL_SEQBUF_REMOVE(b, seq) zl_seqbuf_remove_((b)->tag, (uint32_t)ZL_COUNTOF((b)->tag), (seq))
/* Newest sequence inserted (valid once anything was inserted). */
#define ZL_SEQBUF_NEWEST(b) ((uint16_t)((b)->head.next - 1u))

ZL_END_DECLS

#endif
