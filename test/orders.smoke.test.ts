import { describe, expect, it } from "vitest";
import { call, insert, storeWithToken } from "./helpers/api";

describe("smoke", () => {
  it("inserts and reads back an order", async () => {
    const { token } = await storeWithToken();
    const id = await insert(token);
    const res = await call("GET", `/v1/${token}/Orders/${id}`);
    expect(res.status).toBe(200);
    expect(res.json.Success).toBe(true);
    expect((res.json.Orders as { OrderId: string }[])[0]!.OrderId).toBe(id);
  });
});
