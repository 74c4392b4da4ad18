import type { NewConversationForm } from '@cc/contracts';

/** The new-conversation dialog's code (its form validates with the contract's schema) loads when it is opened. */
export function openNewConversationModal(onConfirm: (form: NewConversationForm) => void): void {
  void import('./components/new-conversation-modal').then((m) => m.openNewConversationModal(onConfirm));
}
