// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Base64} from "@openzeppelin/contracts/utils/Base64.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {IUniswapV3Factory} from "@uniswap/v3-core/contracts/interfaces/IUniswapV3Factory.sol";
import {IUniswapV3Pool} from "@uniswap/v3-core/contracts/interfaces/IUniswapV3Pool.sol";
import {IUniswapV3MintCallback} from "@uniswap/v3-core/contracts/interfaces/callback/IUniswapV3MintCallback.sol";
import {IUniswapV3SwapCallback} from "@uniswap/v3-core/contracts/interfaces/callback/IUniswapV3SwapCallback.sol";

/// @title Drives a Uniswap v3 pool for the demo: mints liquidity and swaps paid by the caller, burns and collects.
/// @notice The callee owns the liquidity it mints, so only its owner may burn it and collect what it is owed.
/// Callers approve this contract for both tokens; the callbacks pull exactly what the pool asks for.
contract UniswapV3Callee is IUniswapV3MintCallback, IUniswapV3SwapCallback {
    // TickMath.MIN_SQRT_RATIO + 1 and MAX_SQRT_RATIO - 1: swaps run without a price limit.
    uint160 private constant MIN_SQRT_PRICE_LIMIT = 4295128740;
    uint160 private constant MAX_SQRT_PRICE_LIMIT = 1461446703485210103287233600234081541581;

    IUniswapV3Factory public immutable factory;
    address public immutable owner;

    error NotOwner(address caller);
    error NotAPool(address caller);

    constructor(IUniswapV3Factory factory_, address owner_) {
        factory = factory_;
        owner = owner_;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    function mint(IUniswapV3Pool pool, int24 tickLower, int24 tickUpper, uint128 liquidity)
        external
        returns (uint256 amount0, uint256 amount1)
    {
        return pool.mint(address(this), tickLower, tickUpper, liquidity, abi.encode(msg.sender));
    }

    /// @notice Swaps an exact input amount (`amountIn` > 0) of token0 for token1 or the other way round.
    function swapExactInput(IUniswapV3Pool pool, bool zeroForOne, int256 amountIn, address recipient)
        external
        returns (int256 amount0, int256 amount1)
    {
        uint160 limit = zeroForOne ? MIN_SQRT_PRICE_LIMIT : MAX_SQRT_PRICE_LIMIT;
        return pool.swap(recipient, zeroForOne, amountIn, limit, abi.encode(msg.sender));
    }

    function burn(IUniswapV3Pool pool, int24 tickLower, int24 tickUpper, uint128 liquidity)
        external
        onlyOwner
        returns (uint256 amount0, uint256 amount1)
    {
        return pool.burn(tickLower, tickUpper, liquidity);
    }

    /// @notice Collects everything the position is owed (burnt liquidity and fees) to `recipient`.
    function collect(IUniswapV3Pool pool, int24 tickLower, int24 tickUpper, address recipient)
        external
        onlyOwner
        returns (uint128 amount0, uint128 amount1)
    {
        return pool.collect(recipient, tickLower, tickUpper, type(uint128).max, type(uint128).max);
    }

    function uniswapV3MintCallback(uint256 amount0Owed, uint256 amount1Owed, bytes calldata data) external override {
        IUniswapV3Pool pool = _requirePool();
        address payer = abi.decode(data, (address));
        if (amount0Owed > 0) IERC20(pool.token0()).transferFrom(payer, msg.sender, amount0Owed);
        if (amount1Owed > 0) IERC20(pool.token1()).transferFrom(payer, msg.sender, amount1Owed);
    }

    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external override {
        IUniswapV3Pool pool = _requirePool();
        address payer = abi.decode(data, (address));
        // Positive deltas are what the pool must receive.
        if (amount0Delta > 0) IERC20(pool.token0()).transferFrom(payer, msg.sender, uint256(amount0Delta));
        if (amount1Delta > 0) IERC20(pool.token1()).transferFrom(payer, msg.sender, uint256(amount1Delta));
    }

    /// @dev Callbacks move the payer's approved tokens, so only a pool of this factory may make them.
    function _requirePool() private view returns (IUniswapV3Pool pool) {
        pool = IUniswapV3Pool(msg.sender);
        if (factory.getPool(pool.token0(), pool.token1(), pool.fee()) != msg.sender) revert NotAPool(msg.sender);
    }
}

/// @title Token descriptor of the demo's NonfungiblePositionManager: `data:` JSON metadata naming the position.
/// @notice Uniswap's own descriptor needs linked libraries and a WETH-based label; the demo only needs valid
/// metadata for each position NFT.
contract DemoPositionDescriptor {
    function tokenURI(address, uint256 tokenId) external pure returns (string memory) {
        string memory json = string.concat(
            '{"name":"Sextant Demo Uniswap V3 Position #',
            Strings.toString(tokenId),
            '","description":"A liquidity position minted by the Sextant demo scenario."}'
        );
        return string.concat("data:application/json;base64,", Base64.encode(bytes(json)));
    }
}
