import { modals } from '@mantine/modals';
import type { ReactNode } from 'react';
import { returnFocusTo } from '../../../lib/focus';

export interface ConfirmOptions {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  /** Red confirm button for destructive actions. */
  danger?: boolean;
}

/**
 * Resolves true when the admin confirms, false on cancel or close. The focus goes back where it was (for an action
 * from a row's menu, see `fromMenu`) as the dialog closes, before the caller goes on: a caller that removes the row
 * then moves it on (`focusAfterRemoval`) without the dialog's own, later return undoing that.
 */
export function confirmAction(options: ConfirmOptions): Promise<boolean> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  return new Promise((resolve) => {
    modals.openConfirmModal({
      ...returnFocusTo(opener, () => resolve(false)),
      title: options.title,
      children: options.body,
      labels: { confirm: options.confirmLabel, cancel: options.cancelLabel },
      confirmProps: { color: options.danger ? 'red' : undefined },
      onConfirm: () => resolve(true),
      onCancel: () => resolve(false),
    });
  });
}
