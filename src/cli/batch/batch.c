/*
 * batch.c - `gfir batch`: options, the manifest, this shard's receipts, then
 * the run or the merge (batch.h).
 */
#include "batch/batch.h"
#include "batch/args.h"
#include "batch/emit.h"
#include "batch/manifest.h"
#include "batch/merge.h"
#include "batch/receipt.h"
#include "batch/runner.h"
#include "batch/shard.h"
#include "chain.h"
#include "message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *real_getenv(const char *name)
{
    return getenv(name);
}

int cli_run_batch(int argc, char **argv)
{
    batch_options bo;
    shard sh, whole = {0, 1, "the whole manifest"};
    manifest m;
    receipt_book book;
    char *dir = NULL;
    int rc = batch_parse_args(argc, argv, &bo);

    if (rc || bo.engine.answered)
        return rc;
    /* --backend cuda's devices start while the manifest and the first
     * input are read */
    if (!bo.merge && !bo.emit) {
        cli_backend_start(&bo.engine);
        for (int k = 1; bo.engine.backend == GFIR_BACKEND_CUDA && k < bo.ngpus; k++)
            (void)gfir_backend_prepare(GFIR_BACKEND_CUDA, bo.gpus[k]);
    }
    if (!bo.merge && !bo.emit && (rc = shard_choose(bo.shard_spec, bo.shards, real_getenv, &sh)) != 0)
        return rc;
    if (!bo.receipts) {
        dir = malloc(strlen(bo.manifest) + sizeof ".receipts");
        if (!dir)
            return cli_error("out of memory");
        sprintf(dir, "%s.receipts", bo.manifest);
        bo.receipts = dir;
    }
    if (manifest_read(&bo, bo.merge || bo.emit ? &whole : &sh, &m)) {
        free(dir);
        return 1;
    }
    rc = receipts_open(&book, bo.receipts, bo.merge || bo.emit ? NULL : &sh);
    book.force = bo.force;
    if (!rc)
        rc = bo.merge  ? batch_merge(&m, &book, bo.merge)
             : bo.emit ? batch_emit(&bo, &m, &book)
                       : batch_run(&bo, &sh, &m, &book);
    receipts_close(&book);
    manifest_free(&m);
    free(dir);
    return rc ? 1 : 0;
}
