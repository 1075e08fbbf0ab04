/* zl_version.c - the library's version and its side of the configuration
 * check: what its own objects were compiled with. */
#include "zl_version.h"

uint32_t zl_version(void)
{
    return ZL_VERSION;
}

int zl_config_check(uint32_t fingerprint, size_t size, size_t expected)
{
    return fingerprint == zl_config_fingerprint() && size == expected ? ZL_OK : ZL_ERR_CONFIG;
}
