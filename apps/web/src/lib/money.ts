/**
 * An amount of the billing currency for people: "$1.25", "US$0.000016", "¥3.50"; up to 6 decimals (the
 * precision amounts are kept in), at least 2. An unknown currency code is shown after the number.
 */
export function formatMoney(amount: number, currency: string, language: string): string {
  try {
    return new Intl.NumberFormat(language, {
      style: 'currency',
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: 6,
    }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}
