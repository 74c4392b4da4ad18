import { notifications } from '@mantine/notifications';

/** A short green toast after an admin action succeeded. */
export function notifySuccess(message: string): void {
  notifications.show({ color: 'green', message, autoClose: 3000 });
}

/** An orange toast when part of an action failed. */
export function notifyWarning(message: string): void {
  notifications.show({ color: 'orange', message, autoClose: 5000 });
}
