import { Select } from '@mantine/core';
import type { UserRef } from '@cc/contracts';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useUserRefs } from '../api/get-users';

/** How many users a picker offers at once (typing narrows them on the server). */
const PICKER_LIMIT = 50;

export interface UserPickerProps {
  label: string;
  placeholder?: string;
  /** What the value holds: the user's id (as a string) or username. */
  valueKind: 'id' | 'username';
  value: string | null;
  onChange: (value: string | null) => void;
  clearable?: boolean;
  error?: string | null;
  w?: number;
}

/** A user chosen by typing part of a name: the server searches, so a team of thousands stays quick. */
export function UserPicker({
  label,
  placeholder,
  valueKind,
  value,
  onChange,
  clearable,
  error,
  w,
}: UserPickerProps) {
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const [chosen, setChosen] = useState<UserRef | null>(null);
  const refs = useUserRefs({ q: q || undefined, limit: PICKER_LIMIT });
  const valueOf = (u: UserRef) => (valueKind === 'id' ? String(u.id) : u.username);
  const options = [...(refs.data ?? [])];
  // The chosen user stays a choice while the search shows others.
  if (chosen && valueOf(chosen) === value && !options.some((u) => u.id === chosen.id))
    options.unshift(chosen);
  return (
    <Select
      label={label}
      placeholder={placeholder}
      searchable
      clearable={clearable}
      // The server filtered already: show what it found.
      filter={({ options: all }) => all}
      searchValue={search}
      onSearchChange={setSearch}
      data={options.map((u) => ({ value: valueOf(u), label: `${u.username} (${u.nickname})` }))}
      value={value}
      onChange={(next) => {
        setChosen(options.find((u) => valueOf(u) === next) ?? null);
        onChange(next);
      }}
      error={error}
      comboboxProps={{ withinPortal: true }}
      w={w}
    />
  );
}
