import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../services/audit.service';
import { currentUser } from './auth';

/** The logged-in user of a request and its client address, as the audit log records them. */
export function auditActor(request: FastifyRequest): AuditActor {
  const { user } = currentUser(request);
  return { id: user.id, name: user.username, address: request.ip };
}
