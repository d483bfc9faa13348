// Compresses the built scripts and styles (<build>/client/assets/*.js, *.css) once, with Brotli at
// its best quality, beside each file as <file>.br, which the server sends to browsers that accept
// Brotli (express-static-gzip in server/app.ts). Part of `npm run build` (scripts/build-server.mjs).
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants } from "node:zlib";

const compress = promisify(brotliCompress);

/** Writes `<file>.br` for every .js and .css file in `dir`; answers how many. */
export async function precompressAssets(dir) {
  const files = (await readdir(dir)).filter((file) => file.endsWith(".js") || file.endsWith(".css"));
  await Promise.all(
    files.map(async (file) => {
      const source = await readFile(path.join(dir, file));
      const params = { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: source.length };
      await writeFile(path.join(dir, `${file}.br`), await compress(source, { params }));
    }),
  );
  return files.length;
}
