/** One credential being edited: a new value (empty = unchanged) or a request to clear it. */
export interface CredentialEdit {
  value: string;
  clear: boolean;
}

/** Only the credentials the admin changed: a new value or null; untouched keys are left out (kept). */
export function credentialsPayload(edits: Record<string, CredentialEdit>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [key, edit] of Object.entries(edits)) {
    if (edit.clear) out[key] = null;
    else if (edit.value.trim() !== '') out[key] = edit.value.trim();
  }
  return out;
}
