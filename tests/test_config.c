/* test_config.c - the version and the configuration check: an application
 * compiled with other capacities gets ZL_ERR_CONFIG, not corrupted memory. */
#include <string.h>

#include "test_config_app.h"
#include "zl_client.h"
#include "zl_server.h"
#include "zl_test.h"

static void test_config_version(void)
{
    ZL_CHECK_EQ(zl_version(), ZL_VERSION);
    ZL_CHECK_EQ(ZL_VERSION >> 16, ZL_VERSION_MAJOR);
    ZL_CHECK(strcmp(zl_strerror(ZL_ERR_CONFIG), "ZL_ERR_CONFIG") == 0);
}

/* Built as this file is (the library's configuration): sizes decide. */
static void test_config_check_sizes(void)
{
    ZL_CHECK_EQ(zl_config_check(zl_config_fingerprint(), sizeof(zl_server), sizeof(zl_server)),
                ZL_OK);
    ZL_CHECK_EQ(zl_config_check(zl_config_fingerprint(), sizeof(zl_server) - 4u,
                                sizeof(zl_server)),
                ZL_ERR_CONFIG);
    ZL_CHECK_EQ(zl_config_check(zl_config_fingerprint() ^ 1u, sizeof(zl_client),
                                sizeof(zl_client)),
                ZL_ERR_CONFIG);
}

static void test_config_other_capacities_refused(void)
{
    int untouched = 0;
    ZL_CHECK_EQ(test_config_app_server_init(&untouched), ZL_ERR_CONFIG);
    ZL_CHECK(untouched);
    untouched = 0;
    ZL_CHECK_EQ(test_config_app_client_init(&untouched), ZL_ERR_CONFIG);
    ZL_CHECK(untouched);
}

void zl_suite_config(void)
{
    ZL_RUN(test_config_version);
    ZL_RUN(test_config_check_sizes);
    ZL_RUN(test_config_other_capacities_refused);
}
