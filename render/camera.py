"""Orbit camera: pure numpy, no GL.

Conventions: world +Y up, metres. Matrices are 4x4 float64 acting on column vectors
(``p_clip = projection_matrix(aspect) @ view_matrix() @ p_world``), with OpenGL clip space
(NDC x, y, z in [-1, 1], camera looking down its own -Z). Window coordinates are pixels with the
origin at the TOP-LEFT corner, x right, y down; pixel ``(i, j)`` has its centre at
``(i + 0.5, j + 0.5)``. Angles are radians.

The camera sits at ``target + distance * (cos(pitch) sin(yaw), sin(pitch), cos(pitch) cos(yaw))``
looking at ``target``: yaw 0 and pitch 0 is the front view (camera on +Z, where characters face,
so a character's left side ``.L`` at +X shows on screen right); yaw +pi/2 looks from +X (Blender's
"Right" view); pitch +pi/2 looks straight down with -Z at the top of the screen.
"""
from dataclasses import dataclass, field

import numpy as np

VIEWS = {
    "front": (0.0, 0.0),
    "side": (np.pi / 2, 0.0),
    "top": (0.0, np.pi / 2),
    "back": (np.pi, 0.0),
    "left": (-np.pi / 2, 0.0),
    "bottom": (0.0, -np.pi / 2),
    "three_quarter": (np.pi / 4, np.radians(20.0)),
}
"""Named views as (yaw, pitch) in radians: Blender's Front/Right/Top (numpad 1/3/7) and, with
Ctrl, the opposite Back/Left/Bottom."""

MIN_DISTANCE = 1e-3
MAX_DISTANCE = 1e7  # ten times the largest rig coordinate (rig.ranges): zooming out further shows nothing
MAX_ZOOM_STEPS = 100  # per event: a wheel (or a replayed scroll) of -1e4 clicks would overflow 0.9 ** steps


def _rot_x(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _rot_y(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])

NDC_NEAR_CORNERS = np.array([(x, y, -1.0, 1.0) for x in (-1, 1) for y in (-1, 1)])


@dataclass(frozen=True)
class ViewStart:
    """Where a camera's rays start: around the perspective ``eye`` (3,) out to the near plane's
    ``reach``, or on the orthographic volume's near face, ``far`` behind the eye along ``back``
    (3,). Back faces of closed shapes that the view starts clear of cannot show."""
    eye: np.ndarray
    back: np.ndarray
    reach: float
    far: float
    orthographic: bool

    def clears_balls(self, centres, radii):
        """Whether the view starts outside every ball (``centres`` (N, 3), ``radii`` (N,))."""
        offsets = np.asarray(centres, float).reshape(-1, 3) - self.eye
        if self.orthographic:
            return bool(np.all(offsets @ self.back + radii < self.far))
        return bool(np.all(np.linalg.norm(offsets, axis=1) > np.asarray(radii) + self.reach))

    def clears_box(self, low, high):
        """``clears_balls`` for the axis-aligned box from ``low`` (3,) to ``high`` (3,)."""
        if self.orthographic:
            corners = np.array([np.where(pick, high, low) for pick in np.ndindex(2, 2, 2)])
            return bool(np.all((corners - self.eye) @ self.back < self.far))
        outside_low = self.eye < np.asarray(low) - self.reach
        return bool(np.any(outside_low) or np.any(self.eye > np.asarray(high) + self.reach))


@dataclass
class OrbitCamera:
    """Turntable camera orbiting ``target`` (3,) at ``distance`` metres.

    ``fov_y`` is the vertical field of view of the perspective projection; with ``orthographic``
    on, ``ortho_scale`` is the visible height in metres. ``near``/``far`` are the perspective clip
    distances; the orthographic volume spans ``[-far, far]`` around the eye. ``shift`` (2,) is a
    lens shift in NDC units: the target shows at NDC ``shift`` instead of the window centre (an
    off-axis projection, Blender's camera shift), so framing can fill the part of the window that
    panels leave free while orbiting and zooming still pivot about the target.
    """
    target: np.ndarray = field(default_factory=lambda: np.zeros(3))
    distance: float = 4.0
    yaw: float = 0.0
    pitch: float = 0.0
    fov_y: float = np.radians(40.0)
    orthographic: bool = False
    ortho_scale: float = 2.0
    near: float = 0.01
    far: float = 200.0
    shift: np.ndarray = field(default_factory=lambda: np.zeros(2))

    def __post_init__(self):
        self.target = np.asarray(self.target, dtype=float).copy()
        self.shift = np.asarray(self.shift, dtype=float).copy()

    def _memo(self, name, key, compute):
        """A copy of ``compute()``, computed again only when ``key`` (the fields it reads) differs
        from last time: a frame asks for the same matrices a dozen times. The fields stay plain
        attributes that anything may set (the memo is not a field: not compared, saved or shown)."""
        memo = self.__dict__.setdefault("_memos", {})
        hit = memo.get(name)
        if hit is None or hit[0] != key:
            hit = memo[name] = (key, compute())
        return hit[1].copy()

    def rotation(self):
        """Camera-to-world rotation (3, 3): columns are the camera's right, up and back axes."""
        return self._memo("rotation", (self.yaw, self.pitch), lambda: _rot_y(self.yaw) @ _rot_x(-self.pitch))

    def eye(self):
        return self.target + self.rotation() @ np.array([0.0, 0.0, self.distance])

    def view_matrix(self):
        """World-to-camera matrix (4, 4)."""
        return self._memo("view", (self.yaw, self.pitch, self.distance, *self.target), self._view_matrix)

    def _view_matrix(self):
        r = self.rotation()
        view = np.eye(4)
        view[:3, :3] = r.T
        view[:3, 3] = -r.T @ self.eye()
        return view

    def projection_matrix(self, aspect):
        """Camera-to-clip matrix (4, 4) for a viewport of ``aspect = width / height``."""
        return self._memo("projection", self._projection_key(aspect), lambda: self._projection_matrix(aspect))

    def _projection_key(self, aspect):
        return aspect, self.orthographic, self.ortho_scale, self.fov_y, self.near, self.far, *self.shift

    def _projection_matrix(self, aspect):
        p = np.zeros((4, 4))
        if self.orthographic:
            half_h = self.ortho_scale / 2.0
            p[0, 0] = 1.0 / (half_h * aspect)
            p[1, 1] = 1.0 / half_h
            p[2, 2] = -1.0 / self.far
            p[:2, 3] = self.shift
            p[3, 3] = 1.0
            return p
        f = 1.0 / np.tan(self.fov_y / 2.0)
        n, fa = self.near, self.far
        p[0, 0] = f / aspect
        p[1, 1] = f
        p[:2, 2] = -self.shift  # clip w is -z: NDC moves by exactly ``shift`` at every depth
        p[2, 2] = (fa + n) / (n - fa)
        p[2, 3] = 2.0 * fa * n / (n - fa)
        p[3, 2] = -1.0
        return p

    def near_plane_reach(self, aspect):
        """Distance from the eye to the farthest corner of the perspective near plane."""
        return float(self._memo("reach", self._projection_key(aspect), lambda: self._near_plane_reach(aspect)))

    def _near_plane_reach(self, aspect):
        corners = NDC_NEAR_CORNERS @ np.linalg.inv(self.projection_matrix(aspect)).T
        return np.linalg.norm(corners[:, :3] / corners[:, 3:], axis=1).max()

    def view_start(self, aspect):
        """Where this view's rays start, for a framebuffer of ``aspect`` (width / height)."""
        reach = 0.0 if self.orthographic else self.near_plane_reach(aspect)
        return ViewStart(self.eye(), self.rotation()[:, 2], reach, self.far, self.orthographic)

    def view_projection(self, width, height):
        return self.projection_matrix(width / height) @ self.view_matrix()

    def set_view(self, name):
        """Jump to a named view from ``VIEWS`` (front, side, top, back, left, bottom, three_quarter)."""
        self.yaw, self.pitch = VIEWS[name]

    def visible_height(self):
        """Metres visible top to bottom at the target's depth."""
        return self.ortho_scale if self.orthographic else 2.0 * self.distance * np.tan(self.fov_y / 2.0)

    def toggle_projection(self):
        """Switch perspective <-> orthographic keeping what is seen at the target's depth the same
        size (Blender's numpad 5)."""
        height = self.visible_height()
        self.orthographic = not self.orthographic
        if self.orthographic:
            self.ortho_scale = max(height, MIN_DISTANCE)
        else:
            self.distance = max(height / (2.0 * np.tan(self.fov_y / 2.0)), MIN_DISTANCE)

    def frame_points(self, points, aspect=4.0 / 3.0, margin=1.2, passes=4, rect=None, size=0.0):
        """Centre ``points`` (N, 3) in ``rect`` and move back (perspective) or scale (orthographic)
        until all of them fit it with ``margin`` (> 1 leaves a border), keeping yaw and pitch.

        ``rect`` is ``(left, top, right, bottom)`` as fractions of a window of ``aspect`` (top-left
        origin, the whole window when None): the part of the window that panels leave free. It
        sets ``shift`` so the target shows at the rectangle's centre. Perspective re-centres on
        the projected bounds ``passes`` times, since near points look larger than far ones.

        ``size`` is how big (metres) the things the points belong to are, such as the longest
        bone framed: the eye stays far enough in front of the nearest point for a ball of that
        diameter there to fit the view's height (orthographic: the view is at least that tall),
        so a bone seen end-on, whose ends fit in a dot, is not framed from inside itself."""
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        left, top, right, bottom = (0.0, 0.0, 1.0, 1.0) if rect is None else rect
        self.centre_in(rect)
        half_x, half_y = max(right - left, 1e-3), max(bottom - top, 1e-3)  # NDC half-sizes
        aspect = aspect * half_x / half_y  # the rectangle's own width / height
        self.target = (points.min(axis=0) + points.max(axis=0)) / 2.0
        r = self.rotation()
        if self.orthographic:
            local = (points - self.target) @ r  # camera-axis coordinates around the target
            lo, hi = local.min(axis=0), local.max(axis=0)
            self.target = self.target + r[:, :2] @ ((lo[:2] + hi[:2]) / 2.0)
            fit = max(margin * max(hi[1] - lo[1], (hi[0] - lo[0]) / aspect), size, MIN_DISTANCE)
            self.ortho_scale = fit / half_y
            self.distance = max(float(np.linalg.norm(hi - lo)), 1.0)
            return
        tan_y = np.tan(self.fov_y / 2.0) * half_y
        for k in range(passes + 1):
            local = (points - self.target) @ r
            needed = local[:, 2] + margin * np.maximum(np.abs(local[:, 1]) / tan_y,
                                                      np.abs(local[:, 0]) / (tan_y * aspect))
            clear = local[:, 2].max() + size / 2.0 / tan_y
            self.distance = max(float(needed.max()), clear, MIN_DISTANCE + self.near)
            if k == passes:
                return
            slopes = local[:, :2] / (self.distance - local[:, 2:3])  # screen position as view-ray slopes
            centre = (slopes.min(axis=0) + slopes.max(axis=0)) / 2.0
            self.target = self.target + r[:, :2] @ (centre * self.distance)

    def centre_in(self, rect):
        """Shift the lens so the target shows at the centre of ``rect`` (as ``frame_points`` takes
        it; None: the whole window), the view's scale and angle unchanged."""
        left, top, right, bottom = (0.0, 0.0, 1.0, 1.0) if rect is None else rect
        self.shift = np.array([left + right - 1.0, 1.0 - top - bottom])

    def world_to_window(self, points, width, height):
        """Project world points (N, 3) to window pixels (N, 2), origin top-left.

        Points on or behind the camera plane (clip w <= 0) come back as NaN."""
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        homogeneous = np.ones((len(points), 4))
        homogeneous[:, :3] = points
        clip = homogeneous @ self.view_projection(width, height).T
        w = clip[:, 3:4]
        ndc = np.full((len(points), 2), np.nan)
        np.divide(clip[:, :2], w, out=ndc, where=w > 0)
        window = np.empty((len(points), 2))
        window[:, 0] = (ndc[:, 0] + 1.0) * 0.5 * width
        window[:, 1] = (1.0 - ndc[:, 1]) * 0.5 * height
        return window

    def window_ray(self, x, y, width, height):
        """The world ray under window pixel position ``(x, y)`` (top-left origin).

        Returns ``(origin (3,), direction (3,) unit)``. The origin is the eye for perspective and
        the point on the eye's plane for orthographic, so hits in front of the camera have t > 0."""
        ndc = np.array([2.0 * x / width - 1.0, 1.0 - 2.0 * y / height])
        inv = np.linalg.inv(self.view_projection(width, height))
        near, far = (inv @ np.array([ndc[0], ndc[1], z, 1.0]) for z in (-1.0, 1.0))
        near, far = near[:3] / near[3], far[:3] / far[3]
        direction = (far - near) / np.linalg.norm(far - near)
        if self.orthographic:
            back = self.rotation()[:, 2]
            t = np.dot(self.eye() - near, back) / np.dot(direction, back)
            return near + t * direction, direction
        return self.eye(), direction

    def orbit(self, dx, dy, radians_per_pixel=0.01):
        """Turntable orbit by a mouse drag of (dx, dy) window pixels: dragging right turns the
        scene right, dragging down raises the camera. Pitch stays within [-pi/2, pi/2]."""
        self.yaw -= dx * radians_per_pixel
        self.pitch = float(np.clip(self.pitch + dy * radians_per_pixel, -np.pi / 2, np.pi / 2))

    def pan(self, dx, dy, height):
        """Move the target so the scene at target depth follows a drag of (dx, dy) pixels in a
        viewport ``height`` pixels tall."""
        metres_per_pixel = self.visible_height() / height
        r = self.rotation()
        self.target = self.target + (-dx * r[:, 0] + dy * r[:, 1]) * metres_per_pixel

    def zoom(self, steps, factor=0.9):
        """Zoom in by ``steps`` wheel clicks (negative zooms out): distance and ortho scale are
        multiplied by ``factor ** steps``, with at most ``MAX_ZOOM_STEPS`` a call, and stay within
        [MIN_DISTANCE, MAX_DISTANCE]."""
        if not np.isfinite(steps):
            return
        scale = factor ** float(np.clip(steps, -MAX_ZOOM_STEPS, MAX_ZOOM_STEPS))
        self.distance = float(np.clip(self.distance * scale, MIN_DISTANCE, MAX_DISTANCE))
        self.ortho_scale = float(np.clip(self.ortho_scale * scale, MIN_DISTANCE, MAX_DISTANCE))
