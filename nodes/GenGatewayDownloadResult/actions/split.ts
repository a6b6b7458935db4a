/** Download Result's One Item per Image, for image results found by address and by task alike. */
import type { IBinaryData, IDataObject } from 'n8n-workflow';
import type { Emitted } from '../../shared/runners/free';
import type { DownloadOptions } from './options';

/**
 * One Item per Image: an item with several image files becomes one item per file (`task_id` and the file's fields,
 * its binary under the Binary Property); anything else stays as it is.
 */
export function splitFiles(
	item: { json: IDataObject; binary?: Record<string, IBinaryData> },
	o: DownloadOptions,
): Emitted[] {
	const files = Array.isArray(item.json.files) ? (item.json.files as IDataObject[]) : [];
	if (!o.splitImages || item.json.kind === 'video' || !item.binary) return [{ item }];
	return files.map((f) => {
		const { binaryProperty, ...meta } = f;
		const b = item.binary![String(binaryProperty)];
		return {
			item: {
				json: { task_id: item.json.task_id ?? null, ...meta },
				...(b ? { binary: { [o.prop]: b } } : {}),
			},
		};
	});
}
