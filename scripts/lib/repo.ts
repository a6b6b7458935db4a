/** This repository: the folder it is checked out in and the name its package is published under. */
import { resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const PACKAGE_NAME = 'n8n-nodes-gen-gateway';
