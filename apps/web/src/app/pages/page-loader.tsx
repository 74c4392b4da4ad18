import { Center, Loader } from '@mantine/core';

/** Shown while the first route's guard loads the user. */
export function PageLoader() {
  return (
    <Center h="100dvh">
      <Loader type="dots" />
    </Center>
  );
}
