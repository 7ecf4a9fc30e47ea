// The part uploader called directly against the local R2: every part but the last is exactly
// 5 MiB (R2's minimum, which the local R2 enforces too), the file is the rows' bytes in order,
// and an uploader rebuilt from a part boundary's state writes the same file.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PartUploader, type UploadState } from "../../src/feeds/part-uploader";

const PART = 5_242_880;
const encoder = new TextEncoder();

/** Rows of 1-2 KiB made mostly of 4-byte characters, so part boundaries fall inside characters. */
function rows(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${i},${"🎉".repeat(250 + ((i * 37) % 200))},é\r\n`);
}

async function sha256(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Forwards to the real upload and notes the size of every part sent. */
function recorded(upload: R2MultipartUpload) {
  const sent: [number, number][] = [];
  const wrapper = {
    uploadPart: (n: number, value: Uint8Array) => {
      sent.push([n, value.byteLength]);
      return upload.uploadPart(n, value);
    },
    complete: (parts: R2UploadedPart[]) => upload.complete(parts),
  } as unknown as R2MultipartUpload;
  return { upload: wrapper, sent };
}

/** Appends rows from `from`, shipping full parts; answers the index of each row that filled one. */
async function write(uploader: PartUploader, upload: R2MultipartUpload, lines: string[], from: number, to: number, states: UploadState[]) {
  const filled: number[] = [];
  for (let i = from; i < to; i++) {
    if (uploader.append(lines[i]!)) {
      filled.push(i);
      await uploader.ship(upload, (state) => states.push(state));
    }
  }
  return filled;
}

async function stored(key: string): Promise<ArrayBuffer> {
  return (await env.FEEDS.get(key))!.arrayBuffer();
}

describe("PartUploader", () => {
  it("sends 5 MiB parts, a shorter last one, and the file holds the rows in order", { timeout: 60_000 }, async () => {
    const lines = rows(9000);
    const header = "n,text,accent\r\n";
    const expected = encoder.encode(header + lines.join(""));
    expect(expected.length).toBe(12_670_905);

    const key = "test/uploader/whole.csv";
    const { upload, sent } = recorded(await env.FEEDS.createMultipartUpload(key));
    const uploader = new PartUploader(PART, { tail: encoder.encode(header), parts: [] });
    const states: UploadState[] = [];
    const filled = await write(uploader, upload, lines, 0, lines.length, states);
    const object = await uploader.complete(upload);

    expect(sent).toEqual([
      [1, 5_242_880],
      [2, 5_242_880],
      [3, 2_185_145],
    ]);
    expect(object.size).toBe(12_670_905);
    expect(await sha256(await stored(key))).toBe(await sha256(expected));

    // Each boundary's state: the parts so far, and the bytes from the boundary to the end of the
    // row that crossed it.
    expect(filled).toHaveLength(2);
    expect(states.map((s) => s.parts.map((p) => p.partNumber))).toEqual([[1], [1, 2]]);
    for (const [k, state] of states.entries()) {
      const rowEnd = encoder.encode(header + lines.slice(0, filled[k]! + 1).join("")).length;
      expect(rowEnd - (k + 1) * PART).toBe(state.tail.length);
      expect(await sha256(state.tail)).toBe(await sha256(expected.subarray((k + 1) * PART, rowEnd)));
    }
  });

  it("rebuilt from a boundary's state after losing what it buffered since, writes the same file", { timeout: 60_000 }, async () => {
    const lines = rows(9000);
    const header = "n,text,accent\r\n";
    const expected = encoder.encode(header + lines.join(""));
    // The first boundary falls inside a character: its tail starts with a continuation byte.
    expect(expected[PART]! & 0b1100_0000).toBe(0b1000_0000);

    const key = "test/uploader/resumed.csv";
    const { uploadId } = await env.FEEDS.createMultipartUpload(key);
    const first = recorded(env.FEEDS.resumeMultipartUpload(key, uploadId));
    const cut = new PartUploader(PART, { tail: encoder.encode(header), parts: [] });
    const states: UploadState[] = [];
    const filled: number[] = [];
    // Two hundred rows past the first boundary, then the object is gone.
    for (let i = 0; filled.length === 0 || i <= filled[0]! + 200; i++) {
      if (cut.append(lines[i]!)) {
        filled.push(i);
        await cut.ship(first.upload, (state) => states.push(state));
      }
    }
    await cut.settle();
    expect(states).toHaveLength(1);
    expect(states[0]!.tail[0]! & 0b1100_0000).toBe(0b1000_0000);

    // A new object resumes from the stored state with the rows after the one that crossed.
    const second = recorded(env.FEEDS.resumeMultipartUpload(key, uploadId));
    const resumed = new PartUploader(PART, states[0]!);
    expect(resumed.uploaded).toBe(1);
    const more = await write(resumed, second.upload, lines, filled[0]! + 1, lines.length, states);
    await resumed.complete(second.upload);

    expect(more).toHaveLength(1);
    expect(first.sent).toEqual([[1, 5_242_880]]);
    expect(second.sent).toEqual([
      [2, 5_242_880],
      [3, 2_185_145],
    ]);
    expect(await sha256(await stored(key))).toBe(await sha256(expected));
  });

  it("a row ending exactly at a part's end leaves an empty tail", { timeout: 60_000 }, async () => {
    // A 1,024-byte header and 1,024-byte rows: the 5,119th row ends the first part.
    const line = (i: number) => `${String(i).padStart(6, "0")},${"x".repeat(1015)}\r\n`;
    const header = `${"h".repeat(1022)}\r\n`;
    const key = "test/uploader/exact.csv";
    const { upload, sent } = recorded(await env.FEEDS.createMultipartUpload(key));
    const uploader = new PartUploader(PART, { tail: encoder.encode(header), parts: [] });
    const states: UploadState[] = [];
    const lines = Array.from({ length: 5200 }, (_, i) => line(i));
    const filled = await write(uploader, upload, lines, 0, lines.length, states);
    await uploader.complete(upload);

    expect(filled).toEqual([5118]);
    expect(states).toHaveLength(1);
    expect(states[0]!.tail.length).toBe(0);
    expect(sent).toEqual([
      [1, 5_242_880],
      [2, 82_944],
    ]);
    expect((await env.FEEDS.head(key))!.size).toBe(5_325_824);
  });

  it("a part R2 refuses surfaces from the next call and stores no state", async () => {
    const refusing = {
      uploadPart: () => Promise.reject(new Error("R2 is unavailable")),
      complete: () => Promise.reject(new Error("not expected")),
    } as unknown as R2MultipartUpload;
    const uploader = new PartUploader(64, { tail: encoder.encode("id\r\n"), parts: [] });
    const states: UploadState[] = [];
    let full = false;
    for (let i = 0; !full; i++) full = uploader.append(`row ${i} of some length\r\n`);
    await uploader.ship(refusing, (state) => states.push(state));
    await expect(uploader.settle()).rejects.toThrow("R2 is unavailable");
    expect(states).toEqual([]);
    expect(uploader.uploaded).toBe(0);
  });

  it("refuses a starting state that does not fit in a part, and an append past a full part", () => {
    expect(() => new PartUploader(8, { tail: encoder.encode("id,title\r\n"), parts: [] })).toThrow(
      "the header row or a checkpoint is longer than a multipart part",
    );
    const uploader = new PartUploader(16, { tail: encoder.encode("id\r\n"), parts: [] });
    expect(uploader.append("0123456789\r\n")).toBe(true);
    expect(() => uploader.append("next\r\n")).toThrow("append() after a full part that was not shipped");
  });
});
