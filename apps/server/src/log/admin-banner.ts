/** What the one-time banner shows. */
export interface AdminBannerInput {
  username: string;
  /** The generated password, shown nowhere else. */
  password: string;
  /** ANSI colours (a terminal). */
  color?: boolean;
}

/**
 * The generated initial admin password as a framed block that stands out among the log lines on the console.
 * It is printed once, when the admin is created; the password is not written to the log (nor its file).
 */
export function formatAdminBanner({ username, password, color = false }: AdminBannerInput): string {
  const lines = [
    'Chat Commons: the initial admin was created with a generated password.',
    '',
    `  username: ${username}`,
    `  password: ${password}`,
    '',
    'It is shown only this once: log in and change it (user menu → Reset password).',
  ];
  const width = Math.max(...lines.map((l) => l.length));
  const bold = (s: string) => (color ? `\u001b[1;33m${s}\u001b[0m` : s);
  const rule = `+${'-'.repeat(width + 4)}+`;
  const body = lines.map((l) => `|  ${l.padEnd(width)}  |`);
  return ['', bold(rule), ...body.map(bold), bold(rule), ''].join('\n') + '\n';
}
