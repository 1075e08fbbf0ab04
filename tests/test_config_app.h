/* test_config_app.h - an application compiled with other capacities than the
 * library (test_config_app.c), for the configuration check's tests. */
#ifndef TEST_CONFIG_APP_H
#define TEST_CONFIG_APP_H

/* zl_server_init and zl_client_init as that application calls them. Each
 * returns the init's result and sets *untouched to 1 when the object
 * still holds the bytes it held before the call. */
int test_config_app_server_init(int *untouched);
int test_config_app_client_init(int *untouched);

#endif
