import { Column, CreateDateColumn, Entity, OneToMany, PrimaryGeneratedColumn } from 'typeorm';
import type { PlanName } from '../billing/plans';
import type { ApiKey } from './api-key.entity';

@Entity('accounts')
export class Account {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column('text')
  email!: string;

  @Column('text')
  plan!: PlanName;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @OneToMany('ApiKey', (key: ApiKey) => key.account)
  keys!: ApiKey[];
}
