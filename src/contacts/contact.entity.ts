import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A customer in the contact book; the customer of at most one conversation. */
@Entity('contacts')
export class Contact {
  @PrimaryColumn('uuid')
  id!: string;

  /** E.164, unique. */
  @Column('text')
  phone!: string;

  @Column('text', { nullable: true })
  name!: string | null;

  @Column('text', { nullable: true })
  email!: string | null;

  @Column('text', { array: true })
  tags!: string[];

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}

/**
 * The text that `q` searches, exactly as the trigram index contacts_search_idx is defined, so
 * every search (contacts, conversations by customer) can use it. `alias` qualifies the columns.
 */
export function contactSearchText(alias: string): string {
  return `(coalesce(${alias}.name, '') || ' ' || ${alias}.phone || ' ' || coalesce(${alias}.email, ''))`;
}
