import { z } from 'zod';
import { MAX_STORED_INT } from './limits';

/** A record's id in a body (users, groups, invites, servers): positive and within what the database keeps. */
export const RowId = z.number().int().min(1).max(MAX_STORED_INT);
/** A record's id in a path or a query string. */
export const RowIdParam = z.coerce.number().int().min(1).max(MAX_STORED_INT);
