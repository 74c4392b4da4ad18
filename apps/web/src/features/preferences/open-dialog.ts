/** The preferences dialog loads when first opened (the header offers it on every page). */
export function openPreferencesModal(): void {
  void import('./components/preferences-modal').then((m) => m.openPreferencesModal());
}
