import { downloadFileName } from "./download-name";

describe("downloadFileName", () => {
  it("is the post's title and version with the stored file's extension, whatever the upload was called", () => {
    expect(downloadFileName("Neon Streetwear Set", "V2.1", "small-upload.zip")).toBe("neon-streetwear-set-v2.1.zip");
    expect(downloadFileName("Café Props (Vol. 2)", "2.0", "x.ZIP")).toBe("cafe-props-vol-2-v2.0.zip");
    expect(downloadFileName("Post 7", null, "post-900007.package")).toBe("post-7-v1.0.package");
    expect(downloadFileName("!!!", "V1", "file")).toBe("post-v1");
  });
});
