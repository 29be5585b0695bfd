"""Pictures and documents: sent as uploads or known file ids, edited, downloaded.

A photo must be an image (400 ``IMAGE_PROCESS_FAILED``); an edit's media is
an upload or a known ``file_id`` (an inline message's: never an upload, see
``inline.py``); ``getFile`` and ``/file/bot<token>/...`` serve what was sent.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from tests.botapi.keyboards import _markup_in
from tests.botapi.messages import MAX_CAPTION, MessagesMixin
from tests.botapi.model import JSON, ApiError, StoredFile, bad_request
from tests.botapi.transport import _json_response


class MediaMixin(MessagesMixin):
    """sendPhoto, sendDocument, editMessageMedia, getFile and file downloads."""

    _inline_media: Callable[[Any, dict[str, StoredFile]], StoredFile]  # inline.py: never an upload

    def _m_send_photo(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._send_media(params, files, "photo")

    def _m_send_document(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        return self._send_media(params, files, "document")

    def _send_media(self, params: JSON, files: dict[str, StoredFile], kind: str) -> JSON:
        with self._cond:
            state = self._writable(params)
            stored = self._input_file(params.get(kind), files, kind)
            caption, caption_entities = self._text(params, "caption", "caption_entities",
                                                   MAX_CAPTION)
            return self._send(state, params, caption=caption, caption_entities=caption_entities,
                              **{kind: stored})

    def _input_file(self, value: Any, files: dict[str, StoredFile], kind: str) -> StoredFile:
        """An uploaded file (by field name or attach://name) or a known file_id."""
        found: StoredFile | None = None
        if isinstance(value, str) and value.startswith("attach://"):
            found = files.get(value[len("attach://"):])
        elif value is None:
            found = files.get(kind)
        elif isinstance(value, str):
            found = self._files.get(value)
            if found is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
        if found is None:
            raise bad_request(f"there is no {kind} in the request")
        if found.file_id not in self._files:
            if kind == "photo":
                found = _with_image_size(found)
            self._files[found.file_id] = found
        return found

    def _m_edit_message_media(self, params: JSON, files: dict[str, StoredFile]
                              ) -> JSON | bool:
        with self._cond:
            state, msg = self._editable(params)
            inline = msg.inline_message_id is not None
            # an inline message's text may be given media (the Bot API: "or to add
            # media to text messages"); a chat message's must have media already
            if msg.photo is None and msg.document is None and not inline:
                raise bad_request("there is no media in the message to edit")
            media = params.get("media")
            if not isinstance(media, dict) or media.get("type") not in ("photo", "document"):
                raise bad_request("can't parse InputMedia: unsupported media type")
            kind = media["type"]
            if inline:
                stored = self._inline_media(media.get("media"), files)
            else:
                stored = self._input_file(media.get("media"), files, kind)
            caption, entities = self._text(media, "caption", "caption_entities", MAX_CAPTION)
            return self._edit(msg, photo=stored if kind == "photo" else None,
                              document=stored if kind == "document" else None,
                              caption=caption, caption_entities=entities, text=None,
                              entities=[], reply_markup=_markup_in(params, state))

    def _m_get_file(self, params: JSON, files: dict[str, StoredFile]) -> JSON:
        with self._cond:
            stored = self._files.get(str(params.get("file_id")))
            if stored is None:
                raise bad_request("invalid file_id")
            return {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id,
                    "file_size": len(stored.data), "file_path": stored.path}

    def _download(self, token: str, file_path: str) -> tuple[int, str, bytes]:
        if self.token is not None and token != self.token:
            return _json_response(ApiError(401, "Unauthorized").to_dict(), 401)
        with self._cond:
            for f in self._files.values():
                if f.path == file_path:
                    return 200, f.mime_type or "application/octet-stream", f.data
        return _json_response(ApiError(404, "Not Found").to_dict(), 404)


def _with_image_size(stored: StoredFile) -> StoredFile:
    from dataclasses import replace

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(stored.data)) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError):
        raise bad_request("IMAGE_PROCESS_FAILED") from None
    return replace(stored, width=width, height=height)
