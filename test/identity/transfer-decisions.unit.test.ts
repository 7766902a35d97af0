import { describe, expect, it } from "vitest";
import { DECIDING_SIDE, requireDecidingOrg } from "../../src/identity/transfers/decisions";

const transfer = { from_org_id: "ORIGIN", to_org_id: "DESTINATION" };

describe("transfer decisions: which organization decides", () => {
  it("the destination accepts and rejects; the origin cancels", () => {
    expect(DECIDING_SIDE).toEqual({ accept: "destination", reject: "destination", cancel: "origin" });
    expect(() => requireDecidingOrg("accept", transfer, "DESTINATION")).not.toThrow();
    expect(() => requireDecidingOrg("reject", transfer, "DESTINATION")).not.toThrow();
    expect(() => requireDecidingOrg("cancel", transfer, "ORIGIN")).not.toThrow();
  });

  it("the origin cannot accept or reject its own offer: 403 FORBIDDEN", () => {
    for (const decision of ["accept", "reject"] as const) {
      expect(() => requireDecidingOrg(decision, transfer, "ORIGIN")).toThrow(
        expect.objectContaining({ status: 403, code: "FORBIDDEN", detail: "Only the destination decides." }),
      );
    }
  });

  it("the destination cannot cancel, and a third organization decides nothing: 403 FORBIDDEN", () => {
    expect(() => requireDecidingOrg("cancel", transfer, "DESTINATION")).toThrow(
      expect.objectContaining({ status: 403, code: "FORBIDDEN", detail: "Only the origin decides." }),
    );
    for (const decision of ["accept", "reject", "cancel"] as const) {
      expect(() => requireDecidingOrg(decision, transfer, "OTHER")).toThrow(
        expect.objectContaining({ status: 403, code: "FORBIDDEN" }),
      );
    }
  });
});
