"""Offscreen multisampled rendering and repeatable PNG output.

Images are ``uint8`` arrays of shape ``(height, width, 3)`` with the first row at the top. PNGs are
written by Pillow with no metadata (no time stamps, no text chunks), so the same pixels always
give the same bytes.
"""
import io

import numpy as np
from PIL import Image

from rig.formats.atomic import save_bytes_atomic


class OffscreenTarget:
    """A ``width`` x ``height`` framebuffer with ``samples``-times multisampling (RGBA8, plus depth
    unless ``depth`` is False), resolved into a single-sample one for reading or for blitting to a
    window. Blits copy the colour alone (``colour_fbo``): moderngl blits every attachment, and a
    window's depth format differs from ours (GL_INVALID_OPERATION)."""

    def __init__(self, ctx, width, height, samples=4, depth=True):
        self.ctx = ctx
        self.size = (width, height)
        samples = min(samples, ctx.max_samples)
        self.colour = ctx.renderbuffer((width, height), components=4, samples=samples)
        self.depth = ctx.depth_renderbuffer((width, height), samples=samples) if depth else None
        self.fbo = ctx.framebuffer(color_attachments=[self.colour], depth_attachment=self.depth)
        self.colour_fbo = self.fbo if self.depth is None else ctx.framebuffer(color_attachments=[self.colour])
        self.resolved = ctx.renderbuffer((width, height), components=4)
        self.resolved_fbo = ctx.framebuffer(color_attachments=[self.resolved])

    def use(self):
        """Make this the framebuffer drawn into, with the viewport covering it."""
        self.fbo.use()
        self.ctx.viewport = (0, 0, *self.size)

    def blit(self, destination):
        """Resolve the samples into ``destination`` (a framebuffer of the same size, such as
        ``ctx.screen`` for the app's window)."""
        self.ctx.copy_framebuffer(destination, self.colour_fbo)

    def read_rgb(self):
        """The resolved picture, shape (height, width, 3) uint8, top row first."""
        self.blit(self.resolved_fbo)
        width, height = self.size
        data = self.resolved_fbo.read(components=3, alignment=1)
        return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)[::-1].copy()

    def release(self):
        """Free the GPU objects; if this target is bound, the window's framebuffer is bound instead
        (moderngl would otherwise go on restoring a deleted framebuffer)."""
        if self.ctx.fbo in (self.fbo, self.colour_fbo, self.resolved_fbo):
            self.ctx.screen.use()
        for obj in {self.fbo, self.colour_fbo, self.resolved_fbo, self.colour, self.depth, self.resolved} - {None}:
            if obj is not None:
                obj.release()


def save_png(image, path):
    """Write an (H, W, 3) uint8 image as a PNG with no metadata, atomically (a full disk keeps the
    previous picture)."""
    encoded = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image, dtype=np.uint8)).save(encoded, format="PNG")
    save_bytes_atomic(path, encoded.getvalue(), suffix=".png")


def load_png(path):
    """Read a PNG as an (H, W, 3) uint8 array."""
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB")).copy()


def render_image(ctx, draw, width, height, samples=4):
    """Call ``draw(width, height)`` into a fresh offscreen target and return the picture."""
    target = OffscreenTarget(ctx, width, height, samples)
    try:
        target.use()
        draw(width, height)
        return target.read_rgb()
    finally:
        target.release()


def render_png(ctx, draw, width, height, path, samples=4):
    """``render_image`` then ``save_png`` to ``path``; returns the picture."""
    image = render_image(ctx, draw, width, height, samples)
    save_png(image, path)
    return image
