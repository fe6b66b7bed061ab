"""The plane checks the layout tests rely on must be able to fail."""

from __future__ import annotations

from tests.render.geometry import box_in_polygon, overlapping_pairs

L_SHAPE = ((0, 0), (10, 0), (10, 90), (100, 90), (100, 100), (0, 100))


def test_a_box_in_one_arm_of_an_l_is_inside() -> None:
    assert box_in_polygon((1, 1, 9, 80), L_SHAPE)
    assert box_in_polygon((20, 91, 90, 99), L_SHAPE)


def test_a_box_across_the_notch_of_an_l_is_outside_though_its_corners_are_in() -> None:
    assert not box_in_polygon(
        (5, 5, 95, 95),
        ((0, 0), (10, 0), (10, 95), (95, 95), (95, 0), (100, 0), (100, 100), (0, 100)),
    )
    assert not box_in_polygon((5, 50, 50, 95), L_SHAPE)


def test_boxes_that_touch_do_not_overlap_and_boxes_that_cross_do() -> None:
    assert overlapping_pairs([(0, 0, 10, 10), (10, 0, 20, 10), (0, 10, 10, 20)]) == []
    assert overlapping_pairs([(0, 0, 10, 10), (30, 0, 40, 10), (9, 9, 12, 12)]) == [(0, 2)]
