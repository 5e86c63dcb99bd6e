/*
 * emit.h - `gfir batch --emit-manifest FILE`: the outputs as the manifest a
 * training pipeline reads, one JSON object per output in manifest order:
 * NeMo's fields (audio_filepath, duration), a Lhotse recording under
 * "recording" (id, sources, sampling_rate, num_samples, duration,
 * channel_ids: Recording.from_dict takes it as it is) and gfir's
 * provenance under "gfir" (input, ir, seed, gain_db, align, the segment,
 * version). After a run it takes every output's length from its receipt
 * (like --merge: all shards done, else nothing is written); with
 * --describe it runs nothing and works the lengths out exactly from INPUT's
 * header and the filter's length as the run would (Lhotse's maintainers ask
 * for a reverberated cut's length before the convolution). With --tar,
 * audio_filepath is the member's name (KEY.EXT), as NeMo's tarred manifests
 * have it, and "tar" names the shard once it is known. With --early-ms,
 * early_filepath names the early twin (as long as the output).
 */
#ifndef GFIR_CLI_BATCH_EMIT_H
#define GFIR_CLI_BATCH_EMIT_H

#include "batch/batch.h"
#include "batch/manifest.h"
#include "batch/receipt.h"

/* 0, or 1 after one line per job it could not describe (FILE not written). */
int batch_emit(const batch_options *bo, const manifest *m, const receipt_book *book);

#endif
