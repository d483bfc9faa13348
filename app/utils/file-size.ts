// File sizes as the library shows them: base 1024, two decimals (docs/product.md#constants).
const UNITS = ["Bytes", "KB", "MB", "GB", "TB"] as const;

export function formatFileSize(bytes: number | bigint | null | undefined): string {
  const value = Number(bytes ?? 0);
  if (!Number.isFinite(value) || value <= 0) return "0.00 Bytes";
  const exponent = Math.min(UNITS.length - 1, Math.floor(Math.log(value) / Math.log(1024)));
  return `${(value / 1024 ** exponent).toFixed(2)} ${UNITS[exponent]}`;
}
