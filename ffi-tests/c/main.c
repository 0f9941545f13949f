/* Entry point of the xpbd C test program.
 *
 * Linked into Rust tests (ffi-tests/tests/c_abi.rs calls run_c_tests), and
 * built standalone by .ci/run against target/release/libxpbd.a with
 * -DXPBD_TEST_STANDALONE, so the archive C users get is what is tested. */
#include "ensure.h"

int xpbd_test_failures = 0;
int xpbd_test_checks = 0;

int run_c_tests(void);

int run_c_tests(void) {
    xpbd_test_failures = 0;
    xpbd_test_checks = 0;
    test_golden();
    test_status();
    test_null();
    test_alias();
    test_f32();
    test_system();
    test_step();
    test_version();
    test_colored();
    test_fenv();
    test_groups();
    test_tethers();
    test_attach();
    test_skin();
    test_wind();
    test_local_space();
    test_engine();
    test_self();
    test_tear();
    test_colored_step();
    test_causes();
    test_fields();
    printf("xpbd C tests: %d checks, %d failed\n", xpbd_test_checks, xpbd_test_failures);
    printf("%d passed, %d failed\n", xpbd_test_checks - xpbd_test_failures, xpbd_test_failures);
    fflush(stdout);
    return xpbd_test_failures;
}

#ifdef XPBD_TEST_STANDALONE
int main(void) { return run_c_tests() == 0 ? 0 : 1; }
#endif
