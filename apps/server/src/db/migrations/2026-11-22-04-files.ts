import type { AnyDb } from './helpers';

/**
 * Uploaded files: a local copy under `<data_dir>/uploads/<storage_name>`, an upstream (openai_web) file, or both.
 * The id is a uuid; the stored name is generated, never the client's.
 */
export function files() {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('files')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('original_filename', 'varchar(512)', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('content_type', 'varchar(255)')
        .addColumn('storage_name', 'varchar(64)')
        .addColumn('uploader_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('upload_time', 'varchar(32)', (c) => c.notNull())
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('use_case', 'varchar(32)')
        .addColumn('openai_web_file_id', 'varchar(160)')
        .addColumn('openai_web_upload_url', 'text')
        .addColumn('openai_web_download_url', 'text')
        .execute();
      await db.schema
        .createIndex('files_uploader_idx')
        .on('files')
        .columns(['uploader_id', 'upload_time'])
        .execute();
      await db.schema.createIndex('files_openai_web_idx').on('files').column('openai_web_file_id').execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('files').execute();
    },
  };
}
