import { formatPrice } from "./price-words";

describe("formatPrice", () => {
  it("writes whole prices without cents and others with two digits, the same on every call", () => {
    for (let round = 0; round < 2; round++) {
      expect(formatPrice(500, "USD")).toBe("$5");
      expect(formatPrice(450, "USD")).toBe("$4.50");
      expect(formatPrice(300, "EUR")).toBe("€3");
      expect(formatPrice(305, "EUR")).toBe("€3.05");
    }
  });

  it("writes the amount and the code for a code Intl does not know", () => {
    expect(formatPrice(1200, "not-a-code")).toBe("12 not-a-code");
    expect(formatPrice(1250, "not-a-code")).toBe("12.50 not-a-code");
  });
});
