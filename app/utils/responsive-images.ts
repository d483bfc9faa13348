// Responsive images: every stored image can be asked for at one of a few widths (`?w=`), so
// phones download small versions. A fixed list keeps the number of generated variants bounded.

export const IMAGE_WIDTHS = [320, 640, 960, 1280] as const;

export type ImageWidth = (typeof IMAGE_WIDTHS)[number];

/** The requested variant width, or null for the original (absent or not one of IMAGE_WIDTHS). */
export function parseImageWidth(value: string | null): ImageWidth | null {
  const width = Number(value);
  return (IMAGE_WIDTHS as readonly number[]).includes(width) ? (width as ImageWidth) : null;
}

/** The `srcSet` of an image address (which may already carry a query, such as `?v=`). */
export function imageSrcSet(url: string): string {
  const separator = url.includes("?") ? "&" : "?";
  return IMAGE_WIDTHS.map((width) => `${url}${separator}w=${width} ${width}w`).join(", ");
}

/** `sizes` for images in the site's card grids (one column on phones, up to three or four wide). */
export const GRID_IMAGE_SIZES = "(max-width: 560px) calc(100vw - 2rem), (max-width: 900px) 50vw, 400px";

/** Only images this site stores can be resized; an external address is used as it is. */
export function isLocalImage(url: string): boolean {
  return url.startsWith("/media/") || url.startsWith("/panel_images/");
}
