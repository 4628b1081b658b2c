"""Balance: a body standing still keeps its centre of mass over its feet, so with both feet planted
the head's place over them tells how far the trunk leans (bending over, the hips go back as the head
goes forward: a head far ahead of the feet is a trunk bent over with the hips behind).

Two masses (Winter, Biomechanics and Motor Control of Human Movement, 4th ed., table 4.1): head,
arms and trunk (HAT) ``HAT_MASS`` of the body, its centre ``HAT_CENTRE`` of the way from the hips to
the shoulders, rigid and leaning about the pelvis as ``rig.tracking.estimate`` leans it; the legs the
rest, each one's centre ``LEG_CENTRE`` of the way from its hip to its ankle. With the head ``x``
metres ahead of the support (the planted ankles' midpoint) and the trunk leaning ``lean``, the centre
of mass is ``legs * x + sin(lean) * s + cos(lean) * c + h`` ahead of the support (``Balance``:
``legs`` the share of the mass that moves with the hips; ``s``, ``c`` and ``h`` from the rest head,
pelvis, hips and shoulders). A standing body holds it over its feet, ``COP_AHEAD`` ahead of the
ankles, give or take ``CENTRE_SLACK`` and half the feet's stagger (one foot ahead of the other, it
may be anywhere between them): how sure the read is (``balance_miss``).
"""
from dataclasses import dataclass

import numpy as np

HAT_MASS = 0.678  # of the body's mass: head, arms and trunk (Winter: 0.081 + 2 x 0.050 + 0.497)
HAT_CENTRE = 0.626  # of the way from the hips to the shoulders: HAT's centre of mass (Winter)
LEG_CENTRE = 0.447  # of the way from the hip to the ankle: a whole leg's centre of mass (Winter; 0.161 each)
FOOT = 0.31  # of the leg's length (thigh + shin): the foot's (Winter's fractions of height: 0.152 and 0.491)
COP_AHEAD = 0.25  # of the foot's length: a standing body's centre of pressure ahead of its ankles (Winter
# 1995, "Human balance and posture control during standing and walking": about 5 cm on a 26 cm foot)
CENTRE_SLACK = 0.5  # of the foot's length: how far the centre of mass may be from there (anywhere over the
# foot, heel to toes; and the model's rigid trunk and straight legs are not the body's)


@dataclass(frozen=True)
class Balance:
    """The two-mass model of a Body (module doc), metres: ``legs`` the share of the mass that moves
    with the hips; ``sin``, ``cos`` and ``hips`` the terms of the centre of mass's forward offset;
    ``centre`` where ahead of the support a standing body holds it, ``slack`` how far it strays."""
    legs: float
    sin: float
    cos: float
    hips: float
    centre: float
    slack: float


def balance_of(body):
    """The Balance of ``body`` (a ``rig.tracking.body.Body``)."""
    pelvis = body.pelvis_below_head[1:]  # (up, forward) from the head, at rest
    shoulders = np.mean([arm.shoulder_from_head[1:] for arm in body.arms.values()], axis=0)
    hat = HAT_CENTRE * (shoulders - pelvis)  # (up, forward) from the pelvis, turned with the trunk's lean
    legs_mass = 1.0 - HAT_MASS
    hanging = legs_mass * (1.0 - LEG_CENTRE)  # the legs' mass that moves with the hips (the rest stays on the feet)
    legs = HAT_MASS + hanging
    hips_ahead = float(np.mean([hip[2] for hip in body.hips_from_pelvis.values()]))
    foot = FOOT * body.leg_length
    return Balance(legs, legs * pelvis[0] + HAT_MASS * hat[0], legs * pelvis[1] + HAT_MASS * hat[1],
                   hanging * hips_ahead, COP_AHEAD * foot, CENTRE_SLACK * foot)


def balance_miss(balance, aheads, lean_sin, lean_cos):
    """How far the centre of mass is from where a standing body holds it, in its slack (``slack`` and
    half the feet's stagger), at each lean (its sine and cosine, arrays), the head ``aheads`` (2,)
    metres ahead of each planted ankle."""
    centre = balance.legs * float(np.mean(aheads)) + lean_sin * balance.sin + lean_cos * balance.cos + balance.hips
    return (centre - balance.centre) / (balance.slack + 0.5 * float(np.ptp(aheads)))
