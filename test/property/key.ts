/** The credential's key in every generated run: its raw, percent-encoded and Base64 forms all differ. */
export const KEY = 'sk-prop/Key+Z9=abcdefghij0123456789';
