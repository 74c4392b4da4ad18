/**
 * An amount of the billing currency for people: "$3.04", "$0.039", "US$0.000016", "¥3.50": cents for amounts of a
 * unit or more, three significant digits below (amounts are kept to 6 decimals, so a single ask's cost still shows),
 * at least 2 decimals. An unknown currency code is shown after the number.
 */
export function formatMoney(amount: number, currency: string, language: string): string {
  const size = Math.abs(amount);
  const decimals = size >= 1 || size === 0 ? 2 : Math.min(6, Math.max(2, 2 - Math.floor(Math.log10(size))));
  try {
    return new Intl.NumberFormat(language, {
      style: 'currency',
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: decimals,
    }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}
