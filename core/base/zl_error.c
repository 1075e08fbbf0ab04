/* zl_error.c - names of result codes, for logs and test failures. */
#include "zl_base.h"

const char *zl_strerror(int code)
{
    switch (code) {
    case ZL_OK: return "ZL_OK";
    case ZL_ERR_INVALID: return "ZL_ERR_INVALID";
    case ZL_ERR_AGAIN: return "ZL_ERR_AGAIN";
    case ZL_ERR_TRUNCATED: return "ZL_ERR_TRUNCATED";
    case ZL_ERR_OVERFLOW: return "ZL_ERR_OVERFLOW";
    case ZL_ERR_FULL: return "ZL_ERR_FULL";
    case ZL_ERR_ADDRESS: return "ZL_ERR_ADDRESS";
    case ZL_ERR_UNSUPPORTED: return "ZL_ERR_UNSUPPORTED";
    case ZL_ERR_IO: return "ZL_ERR_IO";
    case ZL_ERR_MALFORMED: return "ZL_ERR_MALFORMED";
    case ZL_ERR_DUPLICATE: return "ZL_ERR_DUPLICATE";
    case ZL_ERR_AUTH: return "ZL_ERR_AUTH";
    case ZL_ERR_CONFIG: return "ZL_ERR_CONFIG";
    case ZL_ERR_CHECKSUM: return "ZL_ERR_CHECKSUM";
    case ZL_ERR_DESYNC: return "ZL_ERR_DESYNC";
    default: return code > 0 ? "ZL_OK (count)" : "ZL_ERR_?";
    }
}
