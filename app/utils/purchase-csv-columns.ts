// The columns of the shop's transactions export that the purchase import reads: the importer
// refuses a file without the required ones, and the admin page names them before the upload.

/** Required: a file without one of these is refused as a whole. */
export const PURCHASE_CSV_REQUIRED_COLUMNS = ["DateTime (UTC)", "TransactionType", "TransactionId", "BuyerEmail", "Item"] as const;

/** Read when present: the item may be named by its Reference instead, and the amount is stored. */
export const PURCHASE_CSV_OPTIONAL_COLUMNS = ["Reference", "Received", "Currency"] as const;
