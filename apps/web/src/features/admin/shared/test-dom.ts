/** The admin tests' DOM stubs: the shared ones (jsdom lacks what Mantine reads). */
export { installDomStubs } from '../../../test/dom-stubs';
