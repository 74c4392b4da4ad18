import { modals } from '@mantine/modals';
import type { ReactNode } from 'react';

export interface ConfirmOptions {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  /** Red confirm button for destructive actions. */
  danger?: boolean;
}

/** Resolves true when the admin confirms, false on cancel or close. */
export function confirmAction(options: ConfirmOptions): Promise<boolean> {
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title: options.title,
      children: options.body,
      labels: { confirm: options.confirmLabel, cancel: options.cancelLabel },
      confirmProps: { color: options.danger ? 'red' : undefined },
      onConfirm: () => resolve(true),
      onCancel: () => resolve(false),
      onClose: () => resolve(false),
    });
  });
}
