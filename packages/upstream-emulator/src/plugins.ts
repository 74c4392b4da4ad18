/** The emulator's deterministic plugin store (the shape of `GET aip/p/approved`). */

export interface PluginManifest {
  schema_version: string;
  name_for_model: string;
  name_for_human: string;
  description_for_model: string;
  description_for_human: string;
  api: Record<string, unknown>;
  auth: Record<string, unknown>;
  logo_url: string;
  contact_email: string;
  legal_info_url: string;
}

export interface Plugin {
  id: string;
  namespace: string;
  manifest: PluginManifest;
  categories: { id: string; title: string }[];
  domain: string;
  status: string;
  user_settings: { is_authenticated: boolean; is_installed: boolean };
  oauth_client_id: string | null;
}

interface PluginSeed {
  id: string;
  namespace: string;
  human: string;
  domain: string;
  forHuman: string;
  forModel: string;
  categories: { id: string; title: string }[];
  /** Operation the `#plugin` scenario calls. */
  operation: string;
  /** Arguments and response of that call. */
  args: Record<string, unknown>;
  response: Record<string, unknown>;
  installedByDefault: boolean;
  auth: Record<string, unknown>;
}

const NEWLY_ADDED = { id: 'newly_added', title: 'New' };
const MOST_POPULAR = { id: 'most_popular', title: 'Most popular' };
const PRODUCTIVITY = { id: 'productivity', title: 'Productivity' };
const LIFESTYLE = { id: 'lifestyle', title: 'Lifestyle' };

const SEEDS: readonly PluginSeed[] = [
  {
    id: 'plugin-0a1b2c3d-0001-4e5f-8a9b-000000000001',
    namespace: 'weather_now',
    human: 'Weather Now',
    domain: 'weather-now.example.com',
    forHuman: 'Current weather and forecasts for any city.',
    forModel:
      'Get the current weather or a 3-day forecast for a city. Use metric units unless asked otherwise.',
    categories: [MOST_POPULAR, LIFESTYLE],
    operation: 'getCurrentWeather',
    args: { city: 'Paris', units: 'metric' },
    response: { city: 'Paris', temperature_c: 18, condition: 'partly cloudy', humidity: 0.62 },
    installedByDefault: true,
    auth: { type: 'none' },
  },
  {
    id: 'plugin-0a1b2c3d-0002-4e5f-8a9b-000000000002',
    namespace: 'math_solver',
    human: 'Math Solver',
    domain: 'math-solver.example.com',
    forHuman: 'Step-by-step solutions for algebra and calculus.',
    forModel: 'Solve a math expression or equation and return the steps and the result.',
    categories: [MOST_POPULAR, PRODUCTIVITY],
    operation: 'solve',
    args: { expression: 'x^2 - 5x + 6 = 0' },
    response: { solutions: [2, 3], steps: ['factor: (x - 2)(x - 3) = 0', 'x = 2 or x = 3'] },
    installedByDefault: true,
    auth: { type: 'none' },
  },
  {
    id: 'plugin-0a1b2c3d-0003-4e5f-8a9b-000000000003',
    namespace: 'recipe_box',
    human: 'Recipe Box',
    domain: 'recipe-box.example.com',
    forHuman: 'Find recipes from the ingredients you have.',
    forModel: 'Search recipes by ingredients and dietary restrictions; returns titles, times and links.',
    categories: [LIFESTYLE],
    operation: 'searchRecipes',
    args: { ingredients: ['tomato', 'basil'], diet: 'vegetarian' },
    response: { results: [{ title: 'Tomato basil pasta', minutes: 20 }] },
    installedByDefault: false,
    auth: { type: 'none' },
  },
  {
    id: 'plugin-0a1b2c3d-0004-4e5f-8a9b-000000000004',
    namespace: 'flight_finder',
    human: 'Flight Finder',
    domain: 'flight-finder.example.com',
    forHuman: 'Search flights and compare fares.',
    forModel: 'Search one-way or return flights between two airports on given dates.',
    categories: [NEWLY_ADDED, LIFESTYLE],
    operation: 'searchFlights',
    args: { from: 'CDG', to: 'JFK', date: '2024-06-01' },
    response: { flights: [{ carrier: 'EX', number: 'EX123', price_usd: 540 }] },
    installedByDefault: false,
    auth: { type: 'service_http', authorization_type: 'bearer' },
  },
  {
    id: 'plugin-0a1b2c3d-0005-4e5f-8a9b-000000000005',
    namespace: 'doc_reader',
    human: 'Doc Reader',
    domain: 'doc-reader.example.com',
    forHuman: 'Read and summarise PDF documents from a link.',
    forModel: 'Fetch a PDF by URL and return its text, page by page, for summarising or answering questions.',
    categories: [PRODUCTIVITY],
    operation: 'readDocument',
    args: { url: 'https://example.com/report.pdf', pages: '1-2' },
    response: { pages: [{ number: 1, text: 'Annual report, summary section.' }] },
    installedByDefault: false,
    auth: { type: 'none' },
  },
  {
    id: 'plugin-0a1b2c3d-0006-4e5f-8a9b-000000000006',
    namespace: 'stock_ticker',
    human: 'Stock Ticker',
    domain: 'stock-ticker.example.com',
    forHuman: 'Delayed stock quotes and company facts.',
    forModel: 'Get a delayed quote (price, change, volume) for a ticker symbol.',
    categories: [NEWLY_ADDED, PRODUCTIVITY],
    operation: 'getQuote',
    args: { symbol: 'EXMP' },
    response: { symbol: 'EXMP', price: 123.45, change_percent: 1.2 },
    installedByDefault: false,
    auth: { type: 'oauth', client_url: 'https://stock-ticker.example.com/oauth' },
  },
];

function toPlugin(seed: PluginSeed, installed: boolean): Plugin {
  return {
    id: seed.id,
    namespace: seed.namespace,
    manifest: {
      schema_version: 'v1',
      name_for_model: seed.namespace,
      name_for_human: seed.human,
      description_for_model: seed.forModel,
      description_for_human: seed.forHuman,
      api: { type: 'openapi', url: `https://${seed.domain}/openapi.yaml`, has_user_authentication: false },
      auth: seed.auth,
      logo_url: `https://${seed.domain}/logo.png`,
      contact_email: `support@${seed.domain}`,
      legal_info_url: `https://${seed.domain}/legal`,
    },
    categories: seed.categories,
    domain: seed.domain,
    status: 'approved',
    user_settings: { is_authenticated: true, is_installed: installed },
    oauth_client_id: seed.auth['type'] === 'oauth' ? `oauth-${seed.namespace}` : null,
  };
}

/** Per-emulator plugin install state over the fixed catalogue. */
export class PluginStore {
  private installed = new Set<string>();

  constructor() {
    this.reset();
  }

  reset(): void {
    this.installed = new Set(SEEDS.filter((s) => s.installedByDefault).map((s) => s.id));
  }

  all(): Plugin[] {
    return SEEDS.map((s) => toPlugin(s, this.installed.has(s.id)));
  }

  get(id: string): Plugin | undefined {
    const seed = SEEDS.find((s) => s.id === id);
    return seed ? toPlugin(seed, this.installed.has(seed.id)) : undefined;
  }

  setInstalled(id: string, installed: boolean): Plugin | undefined {
    if (!SEEDS.some((s) => s.id === id)) return undefined;
    if (installed) this.installed.add(id);
    else this.installed.delete(id);
    return this.get(id);
  }

  /** The plugin the `#plugin` scenario calls: the first known id in `pluginIds`, else the first plugin. */
  callFor(pluginIds: readonly string[] | null): {
    plugin: Plugin;
    operation: string;
    args: Record<string, unknown>;
    response: Record<string, unknown>;
  } {
    const seed = SEEDS.find((s) => pluginIds?.includes(s.id)) ?? SEEDS[0];
    if (!seed) throw new Error('empty plugin catalogue');
    return {
      plugin: toPlugin(seed, this.installed.has(seed.id)),
      operation: seed.operation,
      args: seed.args,
      response: seed.response,
    };
  }
}
