/*
 * gpu_test.c - GPUs named on the command line (src/cli/gpu.c) and the
 * groups of workers `gfir batch` spreads over them (src/cli/batch/gpus.c):
 * every answer for a host of any number of GPUs, given the count, so that
 * it runs without one. What the GPUs then compute is tests/cli/test_gpu.py's.
 */
#include "gpu.h"
#include "batch/gpus.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static int list(const char *spec, int max, int visible, int *ordinals, int *n, char *why)
{
    return cli_gpu_list("--gpus", spec, max, visible, "no reason", ordinals, n, why, 512);
}

static void test_lists(void **state)
{
    int g[16], n = -1;
    char why[512];
    (void)state;
    assert_int_equal(list("all", 16, 2, g, &n, why), 0);
    assert_int_equal(n, 2);
    assert_int_equal(g[0], 0);
    assert_int_equal(g[1], 1);
    assert_int_equal(list("1", 16, 2, g, &n, why), 0);
    assert_int_equal(n, 1);
    assert_int_equal(g[0], 1);
    /* in the order given: the first GPU of the list takes the first worker */
    assert_int_equal(list("3,0,2", 16, 4, g, &n, why), 0);
    assert_int_equal(n, 3);
    assert_int_equal(g[0], 3);
    assert_int_equal(g[1], 0);
    assert_int_equal(g[2], 2);
    /* more GPUs than lists hold: the first max */
    assert_int_equal(list("all", 16, 20, g, &n, why), 0);
    assert_int_equal(n, 16);
    assert_int_equal(g[15], 15);
}

static void test_spelling(void **state)
{
    static const char *const bad[] = {"", ",", "0,", ",0", "-1", "+1", " 1", "1 ", "0x1",
                                      "one", "1.0", "0,,1", "99999999", "All"};
    int g[16], n;
    char why[512];
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(list(bad[i], 16, 2, g, &n, why), 2);
        assert_non_null(strstr(why, "want all, or GPU numbers"));
    }
    assert_int_equal(list("0,1,0", 16, 2, g, &n, why), 2);
    assert_string_equal(why, "--gpus 0,1,0: GPU 0 is named twice");
    assert_int_equal(list("0,1,2", 2, 8, g, &n, why), 2);
    assert_string_equal(why, "--gpus 0,1,2: at most 2 GPUs");
    /* --gpu takes one number, never a list or all */
    assert_int_equal(cli_gpu_list("--gpu", "0,1", 1, 2, "", g, &n, why, sizeof why), 2);
    assert_string_equal(why, "--gpu 0,1: want one GPU number (--gpus takes a list)");
    assert_int_equal(cli_gpu_list("--gpu", "all", 1, 2, "", g, &n, why, sizeof why), 2);
    assert_string_equal(why, "--gpu all: want a GPU number (0 is the first)");
    /* wrong spelling is wrong usage whatever the host has */
    assert_int_equal(list("x", 16, 0, g, &n, why), 2);
}

static void test_host_lacks(void **state)
{
    int g[16], n;
    char why[512];
    (void)state;
    unsetenv("CUDA_VISIBLE_DEVICES");
    assert_int_equal(list("3", 16, 2, g, &n, why), 1);
    assert_string_equal(why, "--gpus 3: this host has 2 visible GPUs, 0 and 1");
    assert_int_equal(list("0,1", 16, 1, g, &n, why), 1);
    assert_string_equal(why, "--gpus 0,1: this host has 1 visible GPU, 0");
    assert_int_equal(list("4", 16, 4, g, &n, why), 1);
    assert_string_equal(why, "--gpus 4: this host has 4 visible GPUs, 0 to 3");
    assert_int_equal(list("0", 16, 0, g, &n, why), 1);
    assert_string_equal(why, "--gpus 0: no GPU is visible: no reason");
    assert_int_equal(list("all", 16, 0, g, &n, why), 1);
    assert_string_equal(why, "--gpus all: no GPU is visible: no reason");
    /* the ordinals are CUDA_VISIBLE_DEVICES's renumbering: say so */
    setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
    assert_int_equal(list("2", 16, 2, g, &n, why), 1);
    assert_non_null(strstr(why, "0 and 1 (CUDA_VISIBLE_DEVICES numbers the ones it leaves"));
    unsetenv("CUDA_VISIBLE_DEVICES");
}

static batch_options named(int jobs, int ngpus)
{
    batch_options bo;
    memset(&bo, 0, sizeof bo);
    bo.jobs = (unsigned)jobs;
    bo.engine.backend = GFIR_BACKEND_CUDA;
    bo.ngpus = ngpus;
    for (int i = 0; i < ngpus; i++)
        bo.gpus[i] = ngpus - 1 - i;
    return bo;
}

static void test_groups(void **state)
{
    batch_groups g;
    batch_options bo = named(6, 3);
    (void)state;
    batch_groups_choose(&bo, 1000, &g);
    assert_int_equal(g.workers, 6);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.gpu[0], 2);
    assert_int_equal(g.gpu[2], 0);
    /* fewer files than workers: a worker a file */
    batch_groups_choose(&bo, 2, &g);
    assert_int_equal(g.workers, 2);
    /* the default count still gives every GPU a worker */
    bo = named(0, 16);
    batch_groups_choose(&bo, 1000, &g);
    assert_int_equal(g.workers, 16);
    /* the CPU backend: no GPUs at all */
    bo = named(4, 0);
    bo.engine.backend = GFIR_BACKEND_CPU;
    batch_groups_choose(&bo, 1000, &g);
    assert_int_equal(g.n, 0);
    assert_int_equal(g.workers, 4);
}

static void test_split(void **state)
{
    batch_options bo = named(4, 2);
    batch_groups g;
    cli_text line = {.len = 0};
    size_t on_gpu[BATCH_MAX_JOBS] = {7, 5};
    (void)state;
    batch_groups_choose(&bo, 100, &g);
    batch_groups_say(&g, on_gpu, 0, &line);
    assert_string_equal(line.text, "; per GPU: 1: 7 files, 0: 5");
    line.len = 0;
    line.text[0] = '\0';
    batch_groups_say(&g, on_gpu, 3, &line);
    assert_string_equal(line.text, "; per GPU: 1: 7 files, 0: 5, CPU: 3");
    /* every file on the CPU (AUTO's choice): no split to tell */
    line.len = 0;
    line.text[0] = '\0';
    on_gpu[0] = on_gpu[1] = 0;
    batch_groups_say(&g, on_gpu, 12, &line);
    assert_string_equal(line.text, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists),      cmocka_unit_test(test_spelling),
        cmocka_unit_test(test_host_lacks), cmocka_unit_test(test_groups),
        cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
