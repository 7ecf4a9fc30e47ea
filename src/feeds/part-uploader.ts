// A compile's file goes to R2 as a multipart upload, one fixed-size part at a time (R2 wants
// every part but the last of one size, at least 5 MiB). Rows are appended into one part while
// the previous full part uploads in the background; at most one upload is in flight, so memory
// stays at two parts whatever the file's size.
//
// Rows are encoded in batches of about 64 KiB of text, as long as the batch cannot reach the end
// of the part (UTF-8 takes at most 3 bytes per UTF-16 unit); the rows near the end are encoded one
// by one, so the row that crosses the boundary is known. One encode per batch instead of one per
// row: in workerd each is a call into the runtime.
//
// The state at a part boundary (the uploaded parts' etags and the bytes already buffered for the
// next part, the row that crossed the boundary included) is what a compile checkpoints: an
// uploader rebuilt from it and given the rows after the boundary writes the same bytes.
import { PartBuffer } from "./part-buffer";

/** Where an upload stands at a part boundary. */
export interface UploadState {
  /** Bytes after the last uploaded part: the start of the next one (the header row at first). */
  tail: Uint8Array;
  parts: R2UploadedPart[];
}

/** UTF-16 units of rows encoded together. */
const BATCH_UNITS = 64 * 1024;

export class PartUploader {
  private buffer: PartBuffer;
  /** The part being uploaded while `buffer` fills. */
  private spare: PartBuffer;
  private readonly parts: R2UploadedPart[];
  /** The end of the row that filled `buffer`, held until ship() starts the next part with it. */
  private rest: Uint8Array | null = null;
  private inFlight: Promise<void> | null = null;
  /** Rows appended but not yet encoded: they fit in `buffer` whatever their characters. */
  private pending = "";

  /** Starts from a state: a new file's (its header row, no parts) or a checkpoint's. */
  constructor(partBytes: number, from: UploadState) {
    this.buffer = new PartBuffer(partBytes);
    // A tail is always shorter than a part (and a header far shorter than 5 MiB).
    if (this.buffer.reset(from.tail) !== null) throw new Error("the header row or a checkpoint is longer than a multipart part");
    this.spare = new PartBuffer(partBytes);
    this.parts = [...from.parts];
  }

  /** Parts R2 has confirmed. */
  get uploaded(): number {
    return this.parts.length;
  }

  /** Appends a row. True when it completed a part: call ship() before the next append. */
  append(row: string): boolean {
    if (this.rest !== null) throw new Error("append() after a full part that was not shipped");
    const pending = this.pending.length + row.length;
    if (this.buffer.length + 3 * pending < this.buffer.size) {
      this.pending += row;
      if (pending >= BATCH_UNITS) this.encodePending();
      return false;
    }
    this.encodePending();
    this.rest = this.buffer.write(row);
    return this.rest !== null;
  }

  /** Encodes the batch into the part; it always fits (append() keeps it so). */
  private encodePending(): void {
    if (this.pending === "") return;
    if (this.buffer.write(this.pending) !== null) throw new Error("a batch of rows overran its part");
    this.pending = "";
  }

  /**
   * Sends the full part once the previous one is stored, and starts the next part with the end of
   * the row that filled it. Answers when the upload has started; `stored` gets the boundary's
   * state once R2 has the part (a failed upload surfaces from the next ship(), settle() or
   * complete()).
   */
  async ship(upload: R2MultipartUpload, stored: (state: UploadState) => void): Promise<void> {
    const rest = this.rest;
    if (rest === null) throw new Error("ship() without a full part");
    await this.settle();
    this.rest = null;
    const full = this.buffer;
    this.buffer = this.spare;
    this.spare = full;
    // Rows are at most a few tens of KiB and parts at least 5 MiB: a row's end always fits.
    if (this.buffer.reset(rest) !== null) throw new Error("a row is longer than a multipart part");
    const tail = this.buffer.filled().slice();
    const pending = upload.uploadPart(this.parts.length + 1, full.bytes).then((part) => {
      this.parts.push(part);
      stored({ tail, parts: [...this.parts] });
    });
    // Awaited by settle(); this only keeps a failure from being reported as unhandled first.
    pending.catch(() => {});
    this.inFlight = pending;
  }

  /** Waits for the part in flight, if any; throws if its upload failed. */
  async settle(): Promise<void> {
    const pending = this.inFlight;
    this.inFlight = null;
    if (pending) await pending;
  }

  /** Uploads what is buffered as the last part and completes the file. */
  async complete(upload: R2MultipartUpload): Promise<R2Object> {
    await this.settle();
    this.encodePending();
    const parts = [...this.parts];
    if (this.buffer.length > 0) parts.push(await upload.uploadPart(parts.length + 1, this.buffer.filled()));
    return upload.complete(parts);
  }
}
