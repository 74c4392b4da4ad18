import { Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';

/** The page around a sign-in form: the product name, a line under it, then the page's own parts. */
export function AuthFrame({ subtitle, children }: { subtitle: string; children: ReactNode }) {
  return (
    <Center mih="100%" py="xl" px="md">
      <Stack align="center" gap="lg" w="100%">
        <Title order={1} className="cc-brand-title">
          Chat Commons
        </Title>
        <Text c="dimmed" ta="center">
          {subtitle}
        </Text>
        {children}
      </Stack>
    </Center>
  );
}

/** The card a sign-in form sits in (the browser's own validation is off: the form shows the messages). */
export function AuthCard({
  onSubmit,
  children,
}: {
  onSubmit: (event: FormEvent) => void;
  children: ReactNode;
}) {
  return (
    <Paper
      component="form"
      withBorder
      shadow="sm"
      p="xl"
      radius="md"
      w={360}
      maw="100%"
      onSubmit={onSubmit}
      noValidate
    >
      <Stack>{children}</Stack>
    </Paper>
  );
}
