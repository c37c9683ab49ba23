import { Column, Entity, PrimaryColumn } from 'typeorm';

export type UserRole = 'admin' | 'agent';
export const USER_ROLES: UserRole[] = ['admin', 'agent'];

@Entity('users')
export class User {
  @PrimaryColumn('uuid')
  id!: string;

  /** Stored lower-cased; unique. */
  @Column('text')
  email!: string;

  @Column('text')
  name!: string;

  @Column('text')
  role!: UserRole;

  @Column('text', { name: 'password_hash' })
  passwordHash!: string;

  @Column('boolean', { name: 'beta_access' })
  betaAccess!: boolean;

  /** Bumped to revoke every token issued before (logout, password change). */
  @Column('integer', { name: 'token_version' })
  tokenVersion!: number;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}
