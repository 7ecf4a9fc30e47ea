// R2 multipart parts must all have one size (at least 5 MiB) except the last, which may be
// smaller. Rows are encoded straight into one preallocated part; the row that crosses the end
// is split, and its rest (the "tail") starts the next part.
const encoder = new TextEncoder();

export class PartBuffer {
  readonly bytes: Uint8Array;
  length = 0;

  constructor(readonly size: number) {
    this.bytes = new Uint8Array(size);
  }

  /** Appends a row. When it fills the part, returns the bytes of the row that did not fit. */
  write(line: string): Uint8Array | null {
    const { read, written } = encoder.encodeInto(line, this.bytes.subarray(this.length));
    this.length += written;
    if (read === line.length) {
      return this.length === this.size ? new Uint8Array(0) : null;
    }
    // encodeInto stops before a character that does not fit whole; split at the byte instead so
    // every part is exactly `size` bytes.
    const rest = encoder.encode(line.slice(read));
    const room = this.size - this.length;
    this.bytes.set(rest.subarray(0, room), this.length);
    this.length = this.size;
    return rest.slice(room);
  }

  /**
   * Starts the next part with `head` (a tail, or the header row). A head longer than a part
   * (only with the tiny parts tests use) fills it and returns what is left, like write().
   */
  reset(head: Uint8Array): Uint8Array | null {
    if (head.length < this.size) {
      this.bytes.set(head, 0);
      this.length = head.length;
      return null;
    }
    this.bytes.set(head.subarray(0, this.size), 0);
    this.length = this.size;
    return head.slice(this.size);
  }

  filled(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}
