/* zl_ring.c - the sequence buffer behind ZL_SEQBUF_*: slots tagged with the
 * 16-bit sequence they hold, kept consistent as sequence numbers wrap. */
#include "zl_ring.h"

void zl_seqbuf_reset_(zl_seqbuf_head *h, uint32_t *tag, uint32_t n)
{
    uint32_t i;
    ZL_ASSERT(h != NULL && tag != NULL && ZL_IS_POW2(n) && n <= 32768u);
    for (i = 0; i < n; i++)
        tag[i] = ZL_SEQ_EMPTY;
    h->next = 0;
    h->started = 0;
}

int zl_seqbuf_insert_(zl_seqbuf_head *h, uint32_t *tag, uint32_t n, uint16_t seq)
{
    uint32_t mask = n - 1u;
    ZL_ASSERT(ZL_IS_POW2(n) && n <= 32768u);
    if (!h->started) {
        h->started = 1;
        h->next = (uint16_t)(seq + 1u);
    } else {
        uint16_t newest = (uint16_t)(h->next - 1u);
        int32_t ahead = zl_seq_diff(seq, newest);
        /* The window is the n sequences ending at the newest; an older
         * sequence would take the slot of one inside it. */
        if (ahead <= -(int32_t)n)
            return ZL_ERR_INVALID;
        if (ahead > 0) {
            /* The slots of skipped sequences may hold entries from a lap
             * ago; emptying them keeps stale entries from answering a
             * lookup. A jump of more than n empties every slot, once. */
            uint32_t skipped = (uint32_t)ahead - 1u;
            uint32_t i;
            if (skipped > n)
                skipped = n;
            for (i = 1; i <= skipped; i++)
                tag[(newest + i) & mask] = ZL_SEQ_EMPTY;
            h->next = (uint16_t)(seq + 1u);
        }
    }
    tag[seq & mask] = seq;
    return (int)(seq & mask);
}

int zl_seqbuf_find_(const uint32_t *tag, uint32_t n, uint16_t seq)
{
    uint32_t i = seq & (n - 1u);
    return tag[i] == seq ? (int)i : -1;
}

void zl_seqbuf_remove_(uint32_t *tag, uint32_t n, uint16_t seq)
{
    uint32_t i = seq & (n - 1u);
    if (tag[i] == seq)
        tag[i] = ZL_SEQ_EMPTY;
}
