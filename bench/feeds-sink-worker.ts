// The feeds benchmark's compile without local R2 (`wrangler dev bench/feeds-sink-worker.ts`, only
// with FEEDS_BENCH_SINK=1): the production Worker and every Durable Object class, except that the
// FeedCompiler's parts go to a bucket that keeps nothing but their sizes. It measures the
// compile's own work (D1 pages, validation, rows, parts, checkpoints, alarms) against the bare
// Worker: on Cloudflare a part upload is I/O to another machine, overlapped with the next part;
// under `wrangler dev` the local R2 runs on the compile's own thread. A file compiled here cannot
// be downloaded. Production builds start at src/index.ts and never see this.
import worker, { FeedCompiler as ProductionFeedCompiler } from "../src/index";

// Every Durable Object class of the service; the FeedCompiler below replaces the production one.
export * from "../src/index";

/** A multipart upload that counts bytes: each part's etag is its size, the object's size their sum. */
function sinkUpload(key: string, uploadId: string): R2MultipartUpload {
  return {
    key,
    uploadId,
    async uploadPart(partNumber: number, value: ArrayBuffer | ArrayBufferView | string | ReadableStream | Blob) {
      const size = typeof value === "string" ? value.length : "byteLength" in value ? value.byteLength : 0;
      return { partNumber, etag: String(size) };
    },
    async abort() {},
    async complete(parts: R2UploadedPart[]) {
      const size = parts.reduce((sum, part) => sum + Number(part.etag), 0);
      return { key, size, etag: "sink", httpEtag: '"sink"', uploaded: new Date() } as R2Object;
    },
  };
}

/** The bucket the sink compile writes to: only what the compiler calls. */
function sinkBucket(real: R2Bucket): R2Bucket {
  return Object.assign(Object.create(real), {
    async createMultipartUpload(key: string) {
      return sinkUpload(key, crypto.randomUUID());
    },
    resumeMultipartUpload: sinkUpload,
    async delete() {},
  });
}

export class FeedCompiler extends ProductionFeedCompiler {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, Object.assign(Object.create(env), { FEEDS: sinkBucket(env.FEEDS) }));
  }
}

export default worker;
