import { BadRequestException, Controller, Get, Headers, Param, Post, Req, Res, UnsupportedMediaTypeException } from '@nestjs/common';
import { HttpException } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AllowSignedUrl } from '../auth/auth.decorators';
import { CurrentUser } from '../users/current-user.decorator';
import { ApiErrors, ErrorBody } from '../common/api-errors';
import { PublicIdPipe } from '../common/public-id.pipe';
import type { UserRow } from '../users/user.entity';
import { UploadedMediaResponse } from './media.dto';
import { MediaService, uploadRefusal } from './media.service';
import { MAX_MEDIA_BYTES } from './media-types';

const MediaId = new PublicIdPipe('med', 'Media');

/** The route option that lets a route take `multipart/form-data` (every other route answers such a body with 415). */
export const MULTIPART_ROUTE = { multipart: true };

@ApiTags('Media')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/media')
export class MediaController {
  constructor(private readonly media: MediaService) {}

  @Post()
  @RouteConfig(MULTIPART_ROUTE)
  @ApiOperation({
    summary: 'Upload a file to send as media',
    description: [
      '`multipart/form-data` with one field, `file`. The bytes stream to the media store as they arrive; nothing holds the whole file.',
      'The type is read from the bytes, not the name or the declared type, and must be one WhatsApp takes, each with its limit (MB = MiB):',
      'image JPEG, PNG 5 MB; video MP4, 3GPP 16 MB; audio AAC, AMR, MP3, M4A, OGG 16 MB; sticker WebP 500 KB; document PDF, Word, Excel, PowerPoint, plain text 100 MB.',
      'Two formats have no signature in their bytes: the old Office formats (.doc, .xls, .ppt share one container, named by the extension or declared type) and plain text (accepted when declared `text/plain` or named `.txt`, and only if the whole file is UTF-8 text without NUL bytes).',
      '413 as soon as the file crosses its limit (the partial file is discarded), or when it would take your uploads not yet sent past your quota (MEDIA_UPLOAD_QUOTA_MB, 1 GB unless set); 415 for a type the channel does not take, or a body that is not multipart.',
      'An upload no message is sent with is deleted MEDIA_UPLOAD_TTL after it was made (a day unless set).',
      'Send the answer\'s id with a message: `{"type":"image","image":{"media_id":"med_…"}}`.',
    ].join('\n\n'),
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } })
  @ApiCreatedResponse({ type: UploadedMediaResponse })
  @ApiErrors(400, 413, 415)
  async upload(@Req() request: FastifyRequest, @CurrentUser() uploader: UserRow): Promise<UploadedMediaResponse> {
    if (!request.isMultipart()) throw new UnsupportedMediaTypeException('Send the file as multipart/form-data, in a field named file');
    // A body that is no multipart at all (no part, no closing boundary) fails here, before any file.
    const part = await request
      .file({ limits: { fileSize: MAX_MEDIA_BYTES + 1, files: 1, fields: 10, parts: 11, fieldSize: 1024 }, throwFileSizeLimit: true })
      .catch((error: unknown) => {
        throw uploadRefusal(error);
      });
    if (!part) throw new BadRequestException('The multipart body has no file: send it in a field named file');
    if (part.fieldname !== 'file') {
      part.file.resume();
      throw new BadRequestException(`The file must be in a field named file, not ${JSON.stringify(part.fieldname.slice(0, 100))}`);
    }
    return this.media.upload({ stream: part.file, filename: part.filename, declaredType: part.mimetype }, uploader);
  }

  @Get(':id')
  @AllowSignedUrl()
  @ApiOperation({
    summary: 'The bytes of a media',
    description: [
      'Answers the bytes with their Content-Type, Content-Length and ETag (the SHA-256; If-None-Match answers 304), and Content-Disposition: inline for images, audio, video and stickers, attachment with the file name for documents and anything else.',
      'Range requests (one range) answer 206 with Content-Range, or 416 past the end.',
      "Authentication: the bearer token, or the signed `url` of a message's media (`?expires=…&signature=…`, valid MEDIA_URL_TTL) without a token, e.g. in `<img src>`; an expired or forged signature is 401.",
      "With the bearer token an admin reads any media, an agent a customer's media of their inboxes, their own uploads and the uploads sent through their inboxes; any other is a 404.",
      '409 while an inbound media is still being downloaded from the channel (event message.media when it settles); 410 when it failed or expired.',
      'Served with a sandboxing Content-Security-Policy and X-Content-Type-Options: nosniff, so no file is ever run as a page of this origin.',
    ].join('\n\n'),
  })
  @ApiProduces('application/octet-stream')
  @ApiQuery({ name: 'expires', required: false, type: String, description: 'Of a signed URL: its expiry, unix seconds' })
  @ApiQuery({ name: 'signature', required: false, type: String, description: 'Of a signed URL: its signature' })
  @ApiHeader({ name: 'Range', required: false, description: 'One byte range, e.g. bytes=0-1023' })
  @ApiOkResponse({ description: 'The bytes', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } })
  @ApiResponse({ status: 206, description: 'The range asked for' })
  @ApiResponse({ status: 304, description: 'If-None-Match named the ETag' })
  @ApiResponse({ status: 409, description: 'Still being downloaded from the channel', type: ErrorBody })
  @ApiResponse({ status: 410, description: 'Failed or expired: the bytes will never be there', type: ErrorBody })
  @ApiResponse({ status: 416, description: 'The range starts past the end', type: ErrorBody })
  @ApiErrors(404)
  async download(
    @Param('id', MediaId) id: string,
    @Headers('range') range: string | undefined,
    @Headers('if-range') ifRange: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @CurrentUser() reader: UserRow | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const answer = await this.media.serve(id, { range, ifRange, ifNoneMatch }, reader ?? null);
    void reply.headers(answer.headers);
    if (answer.status === 416) throw new HttpException('The range starts past the end of the media', 416);
    await reply.status(answer.status).send(answer.status === 304 ? undefined : answer.body);
  }
}
