/* web_native_main.c - the page's bot-only match built natively: its match
 * hash, mean client frame and server time per tick, for the browser test. */
#include <stdio.h>
#include <stdlib.h>

#include "web_sim.h"

/* web_native [seed [seconds]] */
int main(int argc, char **argv)
{
    uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1u;
    uint32_t seconds = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 20u;
    int rc = web_start(seed, 0);
    if (rc != 0) {
        printf("web_native: cannot start (%d)\n", rc);
        return 1;
    }
    web_step(seconds * 1000u);
    printf("hash 0x%08x frame_ns %u tick_ns %u frames %u ticks %u\n", (unsigned)web_hash(),
           (unsigned)web_frame_ns(), (unsigned)web_tick_ns(), (unsigned)web_frames(),
           (unsigned)web_ticks());
    return 0;
}
